// Read-only copies of a state directory, as a replica gets them: a read-only
// bind mount (as root), or a root-owned copy of mode 0555/0444 served by
// uid 65534. Each says why it cannot be made here instead of failing.

import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { mountReadOnly } from "@rukh/testkit";
import { RUKH_BIN } from "@rukh/testkit/cli";
import { NOBODY, nobodyRukh } from "./_nobody.js";

export { NOBODY } from "./_nobody.js";

/** A read-only view of a state directory: where it is, how to run the CLI against it, how to undo it. */
export interface ReadOnlyView {
  /** The read-only directory the replica is given as its state directory. */
  readonly home: string;
  /** The command and arguments that run `rukh args…` as the replica's user. */
  command(args: readonly string[]): { command: string; args: string[] };
  release(): void;
}

const run = (cmd: string, args: readonly string[]) =>
  spawnSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/**
 * `source` bind-mounted read-only at `at` (created): the state directory as
 * a read-only file system. A reason string when mounting is refused here.
 */
export function readOnlyMount(source: string, at: string): ReadOnlyView | string {
  const mount = mountReadOnly(source, at);
  if (typeof mount === "string") return mount;
  return {
    home: at,
    command: (args) => ({ command: RUKH_BIN, args: [...args] }),
    release: () => mount.release(),
  };
}

/**
 * A root-owned copy of `source` at `at`, every directory 0555 and file
 * 0444, that the CLI reads as uid {@link NOBODY}. A reason string when that
 * user cannot run the CLI here (a checkout only root can read).
 */
export function readOnlyCopy(source: string, at: string): ReadOnlyView | string {
  const asNobody = nobodyRukh();
  if (typeof asNobody === "string") return asNobody;
  const copy = run("cp", ["-a", source, at]);
  if (copy.status !== 0) return `cannot copy the state directory: ${copy.stderr.trim()}`;
  const seal = (path: string) => {
    chownSync(path, 0, 0);
    if (lstatSync(path).isDirectory()) {
      for (const name of readdirSync(path)) seal(join(path, name));
      chmodSync(path, 0o555);
    } else chmodSync(path, 0o444);
  };
  seal(at);
  return {
    home: at,
    command: asNobody,
    release: () => {},
  };
}

/**
 * Every entry under `dir` with its type, size, mode and modification time,
 * sorted: two equal listings mean nothing was created, removed or written.
 */
export function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const full = rel === "" ? dir : join(dir, rel);
    const s = lstatSync(full, { bigint: true });
    out.push(`${rel || "."} ${s.isDirectory() ? "d" : "f"} ${s.size} ${s.mode} ${s.mtimeNs}`);
    if (s.isDirectory())
      for (const name of readdirSync(full)) walk(rel === "" ? name : `${rel}/${name}`);
  };
  walk("");
  return out.sort();
}

/** Every file under `dir`, recursively, as paths relative to it. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const full = rel === "" ? dir : join(dir, rel);
    for (const e of readdirSync(full, { withFileTypes: true })) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else out.push(path);
    }
  };
  walk("");
  return out.sort();
}
