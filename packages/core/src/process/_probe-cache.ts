// The outcome of the confinement probe (can bubblewrap make the strict
// sandbox here, a pid namespace for host-trusted commands, and does this
// Node's permission model confine a strict Node command?) kept between
// processes, so a CLI call does not launch three probes before every
// command. Only the yes/no answers are kept, never a program's location:
// those are located and owner-checked afresh by every process. The record is
// used only while everything the answer depends on is unchanged — the user,
// the programs (device, inode, size, mode, owner, times), the kernel's boot
// and namespace sysctls, the namespaces this process is in, the Node binary —
// and for at most an hour. A wrong "yes" (say, an edited record) cannot widen
// anything: the launch itself then fails and the call ends execution_failed.

import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

/** The answers of a probe: `null` for "works", else why not. */
export interface ProbeAnswers {
  readonly strictError: string | null;
  readonly hostError: string | null;
  /** Whether a strict Node command is confined by this Node's permission model. */
  readonly nodeError: string | null;
}

const FORMAT = "rukh.confinement-probe/3";
const MAX_AGE_MS = 3_600_000;
const RECORD_MAX_BYTES = 65_536;
const SYSCTLS = [
  "/proc/sys/kernel/random/boot_id",
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/user/max_pid_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];
const NAMESPACES = ["user", "pid", "mnt", "net"];

const quietly = <T>(fn: () => T): T | null => {
  try {
    return fn();
  } catch {
    return null;
  }
};

function stamp(path: string | null): unknown {
  if (path === null) return null;
  const s = quietly(() => statSync(path, { bigint: true }));
  return s === null
    ? [path]
    : [path, s.dev, s.ino, s.size, s.mode, s.uid, s.mtimeNs, s.ctimeNs].map(String);
}

/** A digest of everything the probe's answers depend on. */
export function probeKey(programs: readonly (string | null)[]): string {
  const parts = {
    uid: process.getuid?.() ?? -1,
    gid: process.getgid?.() ?? -1,
    node: [process.execPath, process.version],
    programs: programs.map(stamp),
    sysctls: SYSCTLS.map((p) => quietly(() => readFileSync(p, "latin1").trim())),
    namespaces: NAMESPACES.map((n) => quietly(() => readlinkSync(`/proc/self/ns/${n}`))),
  };
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/** The answers recorded under `key` in `file`, if fresh; anything unreadable is no record. */
export function readProbe(file: string, key: string, now = Date.now()): ProbeAnswers | undefined {
  const r = quietly(() => {
    const fd = openSync(file, "r");
    try {
      // Never more than the bound, however large the file is.
      const buf = Buffer.allocUnsafe(RECORD_MAX_BYTES + 1);
      const n = readSync(fd, buf, 0, buf.length, 0);
      return n > RECORD_MAX_BYTES ? null : JSON.parse(buf.toString("utf8", 0, n));
    } finally {
      closeSync(fd);
    }
  });
  if (r === null || typeof r !== "object" || r.format !== FORMAT || r.key !== key) return undefined;
  if (typeof r.at !== "number" || now - r.at < 0 || now - r.at > MAX_AGE_MS) return undefined;
  const answer = (v: unknown) => (v === null || typeof v === "string" ? v : undefined);
  const strictError = answer(r.strictError);
  const hostError = answer(r.hostError);
  const nodeError = answer(r.nodeError);
  if (strictError === undefined || hostError === undefined || nodeError === undefined)
    return undefined;
  return { strictError, hostError, nodeError };
}

/**
 * Records `answers` under `key`, atomically (a temporary file in `tmpDir`,
 * named with this process's pid as the state directory's debris rules
 * expect, renamed into place); a record that cannot be written is skipped.
 */
export function writeProbe(file: string, tmpDir: string, key: string, answers: ProbeAnswers): void {
  const tmp = join(tmpDir, `confinement.json.${process.pid}.${randomBytes(6).toString("hex")}`);
  quietly(() => {
    mkdirSync(tmpDir, { recursive: true });
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, JSON.stringify({ format: FORMAT, key, at: Date.now(), ...answers }), {
      mode: 0o644,
      flag: "wx",
    });
    renameSync(tmp, file);
  });
}
