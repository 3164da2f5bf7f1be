// Tasks on the journal: an MCP call that answers its client with a task id
// at once has that id recorded beside the journal — which call it names and
// the binding that made it — before the answer is sent. What the task is
// (working, completed, failed, cancelled) is the call's run in the journal;
// its result is the call's kept result.

import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
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
  const t = await readRecord(fileOf(journalRoot, taskId));
  return t?.taskId === taskId && isBy(t, binding) ? t : undefined;
}

/** The task record in `file`, or `undefined` when it is not one (missing, a link, too large, not JSON). */
async function readRecord(file: string): Promise<TaskRecord | undefined> {
  let text: string;
  try {
    const h = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
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
  try {
    const t = JSON.parse(text) as TaskRecord;
    return typeof t?.taskId === "string" && TASK_ID.test(t.taskId) ? t : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `binding` made task `t`: the same subject, actor, task authority and preset. */
function isBy(t: TaskRecord, binding: HostBinding): boolean {
  const by = t.by;
  return (
    by?.subject === binding.subject &&
    by.actor === binding.actor &&
    by.taskAuthorityRef === binding.taskAuthorityRef &&
    by.preset === binding.preset
  );
}

/**
 * Every task `binding` made that is still recorded, oldest first (ties by
 * id): what a 2025-11-25 `tasks/list` answers, never another binding's.
 */
export async function listTasks(journalRoot: string, binding: HostBinding): Promise<TaskRecord[]> {
  const dir = join(journalPaths(journalRoot).dir, "tasks");
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const found: TaskRecord[] = [];
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    const t = await readRecord(join(dir, name));
    if (t !== undefined && isBy(t, binding)) found.push(t);
  }
  return found.sort((a, b) =>
    a.createdAt === b.createdAt
      ? a.taskId.localeCompare(b.taskId)
      : a.createdAt.localeCompare(b.createdAt),
  );
}
