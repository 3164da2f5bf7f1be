import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { CliRoute } from "@rukh/profile";
import type { RouteSource } from "./_routes.js";

// Listing, help and completion must start about as fast as bare Node, and
// importing @rukh/profile (zlib, the descriptor and JSON validators) alone
// costs most of that budget. This module reads the route cache that
// @rukh/profile writes at publication with nothing but node:fs and a hash:
// the revision must hash to its id and record the cache's digest. It is only an
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
const FORMAT = "rukh.cli-routes/2";
const MAX_BYTES = 16_777_216;
const REVISION_MAX_BYTES = 16_777_216;

/**
 * RFC 8785 canonical JSON for what a revision holds — strings, booleans,
 * null, safe integers, arrays and objects — or `undefined` for anything else
 * (then the authoritative path decides). ECMAScript's string serialization
 * and code-unit key order are the RFC's.
 */
function canonical(v: unknown): string | undefined {
  if (v === null || typeof v === "boolean" || typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number")
    return Number.isSafeInteger(v) && !Object.is(v, -0) ? String(v) : undefined;
  if (Array.isArray(v)) {
    const parts = v.map(canonical);
    return parts.includes(undefined) ? undefined : `[${parts.join(",")}]`;
  }
  if (typeof v !== "object") return undefined;
  const out: string[] = [];
  for (const k of Object.keys(v as object).sort()) {
    const c = canonical((v as Record<string, unknown>)[k]);
    if (c === undefined) return undefined;
    out.push(`${JSON.stringify(k)}:${c}`);
  }
  return `{${out.join(",")}}`;
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/**
 * The active revision's cached routes as a lazy source, after checking that
 * the revision hashes to its id and the cache to the digest the revision
 * records; each command line is parsed only when asked for. `undefined`
 * when the authoritative path must decide.
 */
export function cachedRoutes(
  root: string,
): { revisionId: string; source: RouteSource } | undefined {
  try {
    // Synchronous on purpose: a few small reads at start-up, no FileHandle machinery.
    const id = readFileSync(join(root, "active"), "latin1").trimEnd();
    if (!REVISION_ID.test(id)) return undefined;
    const revisionBytes = readBounded(join(root, "revisions", `${id}.json`), REVISION_MAX_BYTES);
    if (revisionBytes === undefined) return undefined;
    const revision = JSON.parse(revisionBytes.toString("utf8"));
    const text = canonical(revision);
    if (text === undefined || sha256(text) !== id || typeof revision.routesDigest !== "string")
      return undefined;
    const file = join(root, "revisions", `${id}.routes.json`);
    const bytes = readBounded(file, MAX_BYTES);
    if (bytes === undefined || sha256(bytes) !== revision.routesDigest) return undefined;
    const nl = bytes.indexOf(10);
    if (nl === -1) return undefined;
    const v = JSON.parse(bytes.subarray(0, nl).toString("utf8"));
    if (
      v?.format !== FORMAT ||
      v.commandGeneration !== revision.commandGeneration ||
      !Array.isArray(v.groups) ||
      !Array.isArray(v.commands) ||
      !Array.isArray(v.sizes) ||
      v.sizes.length !== v.commands.length
    )
      return undefined;
    const sizes = v.sizes as number[];
    const starts: number[] = [];
    let at = nl + 1;
    for (const n of sizes) {
      starts.push(at);
      at += n + 1;
    }
    if (at !== bytes.length) return undefined;
    return {
      revisionId: id,
      source: {
        groups: v.groups,
        commands: v.commands,
        route: (i) =>
          JSON.parse(
            bytes.subarray(starts[i]!, starts[i]! + sizes[i]!).toString("utf8"),
          ) as CliRoute,
      },
    };
  } catch {
    return undefined;
  }
}

/** A whole file, or `undefined` when it is larger than `max`. */
function readBounded(file: string, max: number): Buffer | undefined {
  const fd = openSync(file, "r");
  try {
    if (fstatSync(fd).size > max) return undefined;
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
