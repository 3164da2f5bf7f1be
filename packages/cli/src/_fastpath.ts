import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { CliRoute } from "@rukh/profile";
import type { RouteSource } from "./_routes.js";

// Listing, help and completion must start about as fast as bare Node, and
// importing @rukh/profile (crypto, zlib, the descriptor and JSON validators)
// alone costs most of that budget. This module reads the route cache that
// @rukh/profile writes at publication with nothing but node:fs. It is only an
// optimisation: whenever anything is unusual it answers `undefined` and the
// caller takes the authoritative path through @rukh/profile
// (`resolveStateDir`, `readActiveRoutes`, `projection()`). A contract test
// (test/fastpath.test.ts) keeps both in step.

/** `resolveStateDir` of @rukh/profile: `RUKH_HOME`, else `home`, else XDG, else `~/.local/state/<brand>`. */
export function stateDirOf(
  brand: string,
  env: Readonly<Record<string, string | undefined>>,
  home: string | undefined,
): string {
  if (env.RUKH_HOME) return env.RUKH_HOME;
  if (home) return home;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, brand);
  return join(homedir(), ".local", "state", brand);
}

const REVISION_ID = /^[0-9a-f]{64}$/;
const FORMAT = "rukh.cli-routes/1";
const MAX_BYTES = 16_777_216;

const CHUNK = 65_536;

/** Reads `length` bytes at `position` of a file. */
function readAt(file: string, position: number, length: number): Buffer {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, position + got);
      if (n === 0) throw new Error("short read");
      got += n;
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}

/**
 * The active revision's cached routes as a lazy source: only the header line
 * is read and parsed, each command's line only when asked for. `undefined`
 * when the authoritative path must decide.
 */
export function cachedRoutes(
  root: string,
): { revisionId: string; source: RouteSource } | undefined {
  try {
    // Synchronous on purpose: a few small reads at start-up, no FileHandle machinery.
    const id = readFileSync(join(root, "active"), "latin1").trimEnd();
    if (!REVISION_ID.test(id)) return undefined;
    const file = join(root, "revisions", `${id}.routes.json`);
    const fd = openSync(file, "r");
    let header: Buffer;
    let size: number;
    try {
      size = fstatSync(fd).size;
      if (size > MAX_BYTES) return undefined;
      const chunks: Buffer[] = [];
      let at = 0;
      let end = -1;
      while (end === -1 && at < size) {
        const chunk = Buffer.allocUnsafe(Math.min(CHUNK, size - at));
        const n = readSync(fd, chunk, 0, chunk.length, at);
        if (n === 0) return undefined;
        const nl = chunk.subarray(0, n).indexOf(10);
        if (nl !== -1) end = at + nl;
        chunks.push(chunk.subarray(0, nl === -1 ? n : nl));
        at += n;
      }
      if (end === -1) return undefined;
      header = Buffer.concat(chunks);
    } finally {
      closeSync(fd);
    }
    const v = JSON.parse(header.toString("utf8"));
    if (
      v?.format !== FORMAT ||
      v.revisionId !== id ||
      !Array.isArray(v.groups) ||
      !Array.isArray(v.commands) ||
      !Array.isArray(v.sizes) ||
      v.sizes.length !== v.commands.length
    )
      return undefined;
    const sizes = v.sizes as number[];
    const starts: number[] = [];
    let at = header.length + 1;
    for (const n of sizes) {
      starts.push(at);
      at += n + 1;
    }
    if (at !== size) return undefined;
    return {
      revisionId: id,
      source: {
        groups: v.groups,
        commands: v.commands,
        route: (i) => JSON.parse(readAt(file, starts[i]!, sizes[i]!).toString("utf8")) as CliRoute,
      },
    };
  } catch {
    return undefined;
  }
}
