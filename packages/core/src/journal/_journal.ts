import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open, readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { canonicalJson, type JsonObject, type JsonValue, parseJson } from "@rukh/json";
import { REVISION_ID } from "@rukh/profile/route-cache";
import {
  CoreError,
  JOURNAL_MAX_BYTES,
  JOURNAL_RECORD_MAX_BYTES,
  OUTCOME_KINDS,
  OUTCOME_REASONS,
  type OutcomeKind,
  type OutcomeReason,
  RECORDED_INPUTS_MAX_BYTES,
} from "../contract/index.js";

/**
 * Written and flushed before a command process is spawned.
 *
 * @example
 * const r: JournalStartRecord = { type: "start", invocationId: "…", at: "2026-01-01T00:00:00.000Z",
 *   host: "…", pid: 4242, command: "acme.files/count", revisionId: "…", digest: "…", surface: "mcp",
 *   subject: "u", actor: "agent", taskAuthorityRef: "t1", preset: "default" };
 */
export interface JournalStartRecord {
  readonly type: "start";
  readonly invocationId: string;
  readonly at: string;
  /** Random id of the core instance that wrote it. */
  readonly host: string;
  /** Process id of that host. */
  readonly pid: number;
  readonly command: string;
  readonly revisionId: string;
  /** Digest of the pinned release in the store. */
  readonly digest: string;
  readonly surface: "cli" | "mcp";
  readonly subject: string;
  readonly actor: string;
  readonly taskAuthorityRef: string;
  readonly preset: string;
  /** `sha256:<hex>` of the canonical JSON of the validated inputs (absent in records of earlier versions). */
  readonly inputsDigest?: string;
  /** The validated inputs themselves, only when the owner turned on `journal.recordInputs`. */
  readonly inputs?: JsonObject;
  /** Set when recording was on but the inputs were larger than {@link RECORDED_INPUTS_MAX_BYTES}. */
  readonly inputsOmitted?: "too_large";
  /** Set when the command came from a development link (`ext link`): an unsigned package. */
  readonly dev?: true;
}

/**
 * Written and flushed once the command process exists: enough to find it
 * again, and to be sure it is the same process, after the host is lost.
 *
 * @example
 * const r: JournalProcessRecord = { type: "process", invocationId: "…", host: "…",
 *   pid: 4243, pgid: 4243, startTime: "1234567" };
 */
export interface JournalProcessRecord {
  readonly type: "process";
  readonly invocationId: string;
  readonly host: string;
  /** The command process (for a sandboxed command, the sandbox's outer process). */
  readonly pid: number;
  /** Its process group, led by it. */
  readonly pgid: number;
  /** Its start time in clock ticks since boot (`/proc/<pid>/stat` field 22). */
  readonly startTime: string;
}

/**
 * Written and flushed before an outcome is returned; for a start without one,
 * by the next core start-up (`execution_failed`/`host_lost`). Rejected calls
 * get a final record with no start.
 *
 * @example
 * const r: JournalFinalRecord = { type: "final", invocationId: "…", at: "…", host: "…",
 *   outcome: "succeeded", reason: "completed" };
 */
export interface JournalFinalRecord {
  readonly type: "final";
  readonly invocationId: string;
  readonly at: string;
  readonly host: string;
  readonly outcome: OutcomeKind;
  readonly reason: OutcomeReason;
  readonly command?: string;
  /** What the command wrote besides its result, when it wrote anything. */
  readonly diagnostics?: JournalDiagnostics;
  /**
   * Where and how a result missed its declaration: pointers and codes only
   * (messages may quote the result, which the journal never keeps).
   */
  readonly resultIssues?: readonly { readonly path: string; readonly code: string }[];
  /**
   * Who made a call that was refused before it started (it has no start
   * record to say): the binding's subject, actor, task authority and preset.
   */
  readonly by?: {
    readonly subject: string;
    readonly actor: string;
    readonly taskAuthorityRef: string;
    readonly preset: string;
  };
  /**
   * Set when the outcome reached its caller before this record could be
   * written (the disk was full and the host's reserve spent): it was written
   * once space returned, `at` still the time of the outcome.
   */
  readonly deliveredUnjournaled?: true;
  /** The profile revision a built-in command published: what it changed (`profile history`). */
  readonly published?: string;
}

/**
 * Counts of a call's diagnostics, as its final record keeps them.
 *
 * @example
 * const d: JournalDiagnostics = { stdoutBytes: 12, stderrBytes: 0, droppedBytes: 0 };
 */
export interface JournalDiagnostics {
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly droppedBytes: number;
  readonly logWriteFailures?: number;
}

/**
 * What a start record says of a call's inputs: always their digest, and the
 * inputs themselves when the owner records them and they fit.
 */
export function inputsFields(
  values: JsonObject,
  record: boolean,
): Pick<JournalStartRecord, "inputsDigest" | "inputs" | "inputsOmitted"> {
  const json = canonicalJson(values);
  const inputsDigest = `sha256:${createHash("sha256").update(json).digest("hex")}`;
  if (!record) return { inputsDigest };
  if (Buffer.byteLength(json) > RECORDED_INPUTS_MAX_BYTES)
    return { inputsDigest, inputsOmitted: "too_large" };
  return { inputsDigest, inputs: values };
}

/**
 * One line of the journal.
 *
 * @example
 * const finals = records.filter((r): r is JournalFinalRecord => r.type === "final");
 */
export type JournalRecord = JournalStartRecord | JournalProcessRecord | JournalFinalRecord;

/**
 * What {@link readJournal} found. `tornTailBytes` counts the bytes of a last
 * line without its newline (a write cut short by a crash); it is not a record.
 *
 * @example
 * const { records } = await readJournal(state.root);
 */
export interface JournalContents {
  /** The journal directory. */
  readonly file: string;
  readonly records: readonly JournalRecord[];
  /** Bytes of unfinished last lines, over every segment read. */
  readonly tornTailBytes: number;
}

/** One segment's records and what in it is damaged (a line that is not a record). */
export interface ParsedSegment {
  readonly records: JournalRecord[];
  readonly tornTailBytes: number;
  readonly damaged: readonly string[];
}

/**
 * Where the journal lives. Each host (core) appends to a segment of its own
 * under `live/`; a host that closes moves its segment into `archive/`, and the
 * next start does that for a host that crashed, after finalizing what it left
 * open. So start-up reads only `live/`: as much as is running or was lost,
 * never the history. `invocations.jsonl` is the single file of earlier
 * versions, read as the oldest history.
 */
export const journalPaths = (stateRoot: string) => {
  const dir = join(stateRoot, "journal");
  return {
    dir,
    live: join(dir, "live"),
    archive: join(dir, "archive"),
    quarantine: join(dir, "quarantine"),
    legacy: join(dir, "invocations.jsonl"),
  };
};

const REASONS: ReadonlySet<string> = new Set(Object.values(OUTCOME_REASONS).flat());
const KINDS: ReadonlySet<string> = new Set(OUTCOME_KINDS);
const START_KEYS = [
  "actor",
  "at",
  "command",
  "digest",
  "host",
  "invocationId",
  "pid",
  "preset",
  "revisionId",
  "subject",
  "surface",
  "taskAuthorityRef",
  "type",
];

const START_OPTIONAL: ReadonlySet<string> = new Set([
  "inputsDigest",
  "inputs",
  "inputsOmitted",
  "dev",
]);
function isBy(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v).sort().join(",");
  return (
    keys === "actor,preset,subject,taskAuthorityRef" &&
    Object.values(v).every((x) => typeof x === "string" && x.length > 0 && x.length <= 256)
  );
}

const FINAL_KEYS: ReadonlySet<string> = new Set([
  "type",
  "invocationId",
  "at",
  "host",
  "outcome",
  "reason",
  "command",
  "diagnostics",
  "resultIssues",
  "by",
  "deliveredUnjournaled",
  "published",
]);
const DIAGNOSTICS_KEYS: ReadonlySet<string> = new Set([
  "stdoutBytes",
  "stderrBytes",
  "droppedBytes",
  "logWriteFailures",
]);

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function isDiagnostics(v: JsonValue): boolean {
  if (!isObject(v)) return false;
  const counts = Object.entries(v);
  return (
    ["stdoutBytes", "stderrBytes", "droppedBytes"].every((k) => Object.hasOwn(v, k)) &&
    counts.every(
      ([k, n]) => DIAGNOSTICS_KEYS.has(k) && Number.isSafeInteger(n) && (n as number) >= 0,
    )
  );
}

function isResultIssues(v: JsonValue): boolean {
  return (
    Array.isArray(v) &&
    v.length <= 64 &&
    v.every(
      (i) =>
        isObject(i) &&
        Object.keys(i).sort().join(",") === "code,path" &&
        typeof i.path === "string" &&
        typeof i.code === "string",
    )
  );
}

const PROCESS_KEYS = ["host", "invocationId", "pgid", "pid", "startTime", "type"];

function checkRecord(value: JsonValue, line: number): JournalRecord {
  const bad = (what: string) =>
    new CoreError(
      "journal_corrupt",
      `journal line ${line}: ${what}; expected a start, process or final record`,
    );
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw bad("not an object");
  const v = value as Record<string, JsonValue>;
  const str = (k: string) => {
    if (typeof v[k] !== "string") throw bad(`"${k}" is not a string`);
  };
  if (v.type === "start") {
    const keys = Object.keys(v).filter((k) => !START_OPTIONAL.has(k));
    if (keys.sort().join(",") !== START_KEYS.join(","))
      throw bad("unexpected members in a start record");
    for (const k of START_KEYS) if (k !== "pid") str(k);
    if (v.inputsDigest !== undefined) str("inputsDigest");
    if (v.inputs !== undefined && !isObject(v.inputs)) throw bad('"inputs" is not an object');
    if (v.inputsOmitted !== undefined && v.inputsOmitted !== "too_large")
      throw bad('"inputsOmitted" is not "too_large"');
    if (v.dev !== undefined && v.dev !== true) throw bad('"dev" is not true');
    if (!Number.isSafeInteger(v.pid)) throw bad('"pid" is not an integer');
    if (v.surface !== "cli" && v.surface !== "mcp") throw bad('"surface" is not cli or mcp');
    return v as unknown as JournalStartRecord;
  }
  if (v.type === "final") {
    for (const k of Object.keys(v))
      if (!FINAL_KEYS.has(k)) throw bad(`unexpected member "${k}" in a final record`);
    for (const k of ["invocationId", "at", "host", "outcome", "reason"]) str(k);
    if (v.command !== undefined) str("command");
    if (v.diagnostics !== undefined && !isDiagnostics(v.diagnostics))
      throw bad('"diagnostics" is not a set of byte counts');
    if (v.resultIssues !== undefined && !isResultIssues(v.resultIssues))
      throw bad('"resultIssues" is not a list of pointers and codes');
    if (v.by !== undefined && !isBy(v.by)) throw bad('"by" is not a binding');
    if (v.deliveredUnjournaled !== undefined && v.deliveredUnjournaled !== true)
      throw bad('"deliveredUnjournaled" is not true');
    if (
      v.published !== undefined &&
      (typeof v.published !== "string" || !REVISION_ID.test(v.published))
    )
      throw bad('"published" is not a revision id');
    if (!KINDS.has(v.outcome as string) || !REASONS.has(v.reason as string))
      throw bad("unknown outcome or reason");
    return v as unknown as JournalFinalRecord;
  }
  if (v.type === "process") {
    if (Object.keys(v).sort().join(",") !== PROCESS_KEYS.join(","))
      throw bad("unexpected members in a process record");
    str("invocationId");
    str("host");
    str("startTime");
    if (!Number.isSafeInteger(v.pid) || !Number.isSafeInteger(v.pgid))
      throw bad('"pid" or "pgid" is not an integer');
    return v as unknown as JournalProcessRecord;
  }
  throw bad('"type" is neither start, process nor final');
}

/**
 * Parses one segment leniently: every complete line that is a valid record,
 * a description of every line that is not, and the length of an unfinished
 * last line (a write cut short by a crash: never a record). When `spans` is
 * given, each record's line start and end (past its newline) are pushed to it.
 */
export function parseSegment(bytes: Uint8Array, name: string, spans?: number[]): ParsedSegment {
  const records: JournalRecord[] = [];
  const damaged: string[] = [];
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    if (end < 0) return { records, tornTailBytes: bytes.length - start, damaged };
    line++;
    const where = `${name}:${line}`;
    if (end - start > JOURNAL_RECORD_MAX_BYTES)
      damaged.push(`${where} has ${end - start} bytes; at most ${JOURNAL_RECORD_MAX_BYTES}`);
    else {
      const parsed = parseJson(bytes.subarray(start, end));
      if (!parsed.ok) damaged.push(`${where} is not strict JSON`);
      else
        try {
          records.push(checkRecord(parsed.value, line));
          spans?.push(start, end + 1);
        } catch (e) {
          damaged.push(`${where}: ${(e as Error).message}`);
        }
    }
    start = end + 1;
  }
  return { records, tornTailBytes: 0, damaged };
}

async function readSegment(file: string): Promise<Buffer | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw new CoreError("journal_failed", `cannot open the journal segment ${file}`, { cause: e });
  }
  try {
    const { size } = await handle.stat();
    if (size > JOURNAL_MAX_BYTES)
      throw new CoreError(
        "journal_too_large",
        `the journal segment ${file} has ${size} bytes; at most ${JOURNAL_MAX_BYTES} are read`,
      );
    return await readFile(handle);
  } finally {
    await handle.close();
  }
}

/** Names of the `.jsonl` files of a directory, sorted; none when it does not exist. */
export async function segmentNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => n.endsWith(".jsonl")).sort();
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  }
}

/** Runs `fn` on `file` opened for reading, or gives `undefined` when it cannot be opened. */
export async function readingFile<T>(
  file: string,
  fn: (h: FileHandle) => Promise<T>,
): Promise<T | undefined> {
  let h: FileHandle;
  try {
    h = await open(file, "r");
  } catch {
    return undefined;
  }
  try {
    return await fn(h);
  } finally {
    await h.close();
  }
}

/**
 * Reads the whole invocation journal of a state directory: the history in
 * `archive/` (and the single file of earlier versions), then the segments of
 * running or lost hosts in `live/`. Every line is strict JSON of at most
 * {@link JOURNAL_RECORD_MAX_BYTES} bytes, every segment at most
 * {@link JOURNAL_MAX_BYTES}. A damaged line fails closed with
 * `journal_corrupt` naming the segment and line (start-up never reads
 * history, and moves a damaged segment aside instead). No journal is empty.
 *
 * A host may archive a segment while this reads: it appends the segment to
 * the archive, then removes it from `live/`. So `live/` is read first and the
 * history listed only after: a moving segment is found in one place or both,
 * never in neither, and a record found twice (or carried into a host's next
 * part) is given once, where it stands first.
 *
 * @example
 * const { records } = await readJournal(state.root);
 * const lost = records.filter((r) => r.type === "final" && r.reason === "host_lost");
 */
export async function readJournal(stateRoot: string): Promise<JournalContents> {
  const p = journalPaths(stateRoot);
  const live = await readSegments(
    stateRoot,
    (await segmentNames(p.live)).map((n) => join(p.live, n)),
  );
  const legacy = await readSegments(stateRoot, [p.legacy]);
  const archive = await readSegments(
    stateRoot,
    (await segmentNames(p.archive)).map((n) => join(p.archive, n)),
  );
  const seen = new Set<string>();
  const records: JournalRecord[] = [];
  for (const r of [...legacy.records, ...archive.records, ...live.records]) {
    const line = JSON.stringify(r);
    if (seen.has(line)) continue;
    seen.add(line);
    records.push(r);
  }
  const tornTailBytes = legacy.tornTailBytes + archive.tornTailBytes + live.tornTailBytes;
  return { file: p.dir, records, tornTailBytes };
}

/** The records of `files`, in order; a file that is gone is passed over, a damaged line fails. */
async function readSegments(
  stateRoot: string,
  files: readonly string[],
): Promise<{ records: JournalRecord[]; tornTailBytes: number }> {
  const records: JournalRecord[] = [];
  let tornTailBytes = 0;
  for (const file of files) {
    const bytes = await readSegment(file);
    if (bytes === undefined) continue;
    const seg = parseSegment(bytes, relative(stateRoot, file));
    if (seg.damaged.length > 0)
      throw new CoreError("journal_corrupt", `journal line ${seg.damaged[0]}`);
    records.push(...seg.records);
    tornTailBytes += seg.tornTailBytes;
  }
  return { records, tornTailBytes };
}

/** Reads one segment for recovery: undefined when it is gone. */
export async function readSegmentLeniently(
  file: string,
  name: string,
): Promise<ParsedSegment | undefined> {
  const bytes = await readSegment(file);
  return bytes === undefined ? undefined : parseSegment(bytes, name);
}

/** A live segment's file name: `<host>.<part, 6 digits>.jsonl`, so a host's parts sort in order. */
export function liveSegmentName(host: string, part: number): string {
  return `${host}.${String(part).padStart(6, "0")}.jsonl`;
}

/** The host a live segment belongs to. */
export function liveSegmentHost(name: string): string {
  return name.slice(0, name.indexOf("."));
}
