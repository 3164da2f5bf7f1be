// Launch references: what tells one client's stdio server from another's.
// `mcp config` and `mcp install` issue one per client and endpoint (or
// preset) and record it in the state directory; the configuration they give
// the client starts `mcp serve --launch <id>`; the server checks it and
// binds every call to `launch:<id>` (its task authority), so the journal
// says which configuration made a call, and a task made under one client's
// launch is not found under another's. A reference is not a secret: it
// names a configuration, it proves nothing. `mcp launches` lists them and
// revokes one: its server no longer starts.

import { randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import type { StateDirectory } from "@rukh/profile";

/** One issued launch reference. */
export interface LaunchRecord {
  readonly id: string;
  /** The client whose configuration starts it. */
  readonly client: string;
  /** The endpoint it serves, or (without one) the default endpoint's preset. */
  readonly endpoint?: string;
  readonly preset?: string;
  readonly issuedAt: string;
  /** The OS user who wrote the client's configuration. */
  readonly issuedBy: string;
  readonly revokedAt?: string;
}

/** The largest launch record read. */
const RECORD_MAX_BYTES = 4_096;

/** A launch reference: `lch_` and 96 random bits. */
const LAUNCH_ID = /^lch_[A-Za-z0-9_-]{16}$/;
const dirOf = (state: StateDirectory) => join(state.root, "mcp-launches");

/** Whether `id` has the form of a launch reference. */
export const isLaunchId = (id: string): boolean => LAUNCH_ID.test(id);

/** The record of launch `id`, or `undefined` when none was issued here. */
export function readLaunch(state: StateDirectory, id: string): LaunchRecord | undefined {
  if (!isLaunchId(id)) return undefined;
  const file = join(dirOf(state), `${id}.json`);
  try {
    // A record is a few hundred bytes: anything larger, or not a plain file, is not one.
    const s = lstatSync(file);
    if (!s.isFile() || s.size > RECORD_MAX_BYTES) return undefined;
    const r = JSON.parse(readFileSync(file, "utf8")) as LaunchRecord;
    return r.id === id ? r : undefined;
  } catch {
    return undefined;
  }
}

/** Every launch issued here, oldest first. */
export function listLaunches(state: StateDirectory): LaunchRecord[] {
  let names: string[];
  try {
    names = readdirSync(dirOf(state));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith(".json"))
    .map((n) => readLaunch(state, n.slice(0, -5)))
    .filter((r): r is LaunchRecord => r !== undefined)
    .sort((a, b) => a.issuedAt.localeCompare(b.issuedAt) || a.id.localeCompare(b.id));
}

/** Writes `record` whole (a temporary file flushed, then renamed), 0600 in a 0700 folder. */
function write(state: StateDirectory, record: LaunchRecord): void {
  const dir = dirOf(state);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${record.id}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** What a launch is issued for: a client, and the endpoint (or the default endpoint's preset) it starts. */
export interface LaunchFor {
  readonly client: string;
  readonly endpoint?: string;
  readonly preset: string;
}

const sameLaunch = (r: LaunchRecord, f: LaunchFor) =>
  r.revokedAt === undefined &&
  r.client === f.client &&
  (f.endpoint !== undefined
    ? r.endpoint === f.endpoint
    : r.endpoint === undefined && r.preset === f.preset);

/**
 * The launch reference of `f`: the one issued before and not revoked, so
 * that writing a client's configuration again changes nothing, or a new one
 * recorded now. `dryRun` records nothing: it gives the existing one, or none.
 */
export function issueLaunch(
  state: StateDirectory,
  f: LaunchFor,
  dryRun = false,
): LaunchRecord | undefined {
  const existing = listLaunches(state).find((r) => sameLaunch(r, f));
  if (existing !== undefined || dryRun) return existing;
  const record: LaunchRecord = {
    id: `lch_${randomBytes(12).toString("base64url")}`,
    client: f.client,
    ...(f.endpoint !== undefined ? { endpoint: f.endpoint } : { preset: f.preset }),
    issuedAt: new Date().toISOString(),
    issuedBy: userInfo().username,
  };
  write(state, record);
  return record;
}

/** Revokes launch `id`; `undefined` when none was issued here. */
export function revokeLaunch(state: StateDirectory, id: string): LaunchRecord | undefined {
  const r = readLaunch(state, id);
  if (r === undefined || r.revokedAt !== undefined) return r;
  const revoked = { ...r, revokedAt: new Date().toISOString() };
  write(state, revoked);
  return revoked;
}
