// Tasks on the journal: an MCP call that answers its client with a task id
// at once has that id recorded beside the journal — which call it names and
// the binding that made it — before the answer is sent. What the task is
// (working, completed, failed, cancelled) is the call's run in the journal;
// its result is the call's kept result.

import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import type { HostBinding } from "../contract/index.js";
import { journalPaths } from "./_journal.js";
import { writeWhole } from "./_whole-file.js";

/** One task: its id, the call it names, who made it and when. */
export interface TaskRecord {
  readonly taskId: string;
  readonly invocationId: string;
  readonly createdAt: string;
  readonly by: {
    readonly subject: string;
    readonly actor: string;
    readonly taskAuthorityRef: string;
    readonly preset: string;
  };
}

/** A new task id: 144 random bits, URL-safe, never derived from anything else. */
export const newTaskId = (): string => `tsk_${randomBytes(18).toString("base64url")}`;

const TASK_ID = /^tsk_[A-Za-z0-9_-]{24}$/;
/** Task records are filed under a digest of their id: the folder's names never give an id away. */
const fileOf = (journalRoot: string, taskId: string) =>
  join(
    journalPaths(journalRoot).dir,
    "tasks",
    `${createHash("sha256").update(taskId).digest("hex")}.json`,
  );

/**
 * Records task `taskId` of call `invocationId`, made by `binding`, on disk
 * (flushed) before it returns: a `tasks/get` for it resolves from then on,
 * on any host of this journal. Throws when it cannot be written.
 */
export function recordTask(
  journalRoot: string,
  taskId: string,
  invocationId: string,
  binding: HostBinding,
): TaskRecord {
  const record: TaskRecord = {
    taskId,
    invocationId,
    createdAt: new Date().toISOString(),
    by: {
      subject: binding.subject,
      actor: binding.actor,
      taskAuthorityRef: binding.taskAuthorityRef,
      preset: binding.preset,
    },
  };
  writeWhole(fileOf(journalRoot, taskId), `${JSON.stringify(record)}\n`);
  return record;
}

/**
 * Task `taskId` as `binding` may see it: `undefined` when there is none,
 * or when another binding made it — the same answer, so that no caller
 * learns of another's tasks.
 */
export async function findTask(
  journalRoot: string,
  taskId: string,
  binding: HostBinding,
): Promise<TaskRecord | undefined> {
  if (!TASK_ID.test(taskId)) return undefined;
  let text: string;
  try {
    const h = await open(fileOf(journalRoot, taskId), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const s = await h.stat();
      if (!s.isFile() || s.size > 4_096) return undefined;
      text = (await h.readFile()).toString("utf8");
    } finally {
      await h.close();
    }
  } catch {
    return undefined;
  }
  let t: TaskRecord;
  try {
    t = JSON.parse(text) as TaskRecord;
  } catch {
    return undefined;
  }
  const by = t.by;
  if (
    t.taskId !== taskId ||
    by?.subject !== binding.subject ||
    by.actor !== binding.actor ||
    by.taskAuthorityRef !== binding.taskAuthorityRef ||
    by.preset !== binding.preset
  )
    return undefined;
  return t;
}
