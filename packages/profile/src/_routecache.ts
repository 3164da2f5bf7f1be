import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fingerprint, parseJson, sha256Hex } from "@rukh/json";
import { ioError, ProfileError } from "./_errors.js";
import { REVISION_MAX_BYTES, ROUTES_MAX_BYTES } from "./_limits.js";
import type { CliRouteTable } from "./_projection.js";
import { REVISION_ID } from "./_revision.js";

/**
 * Format tag of a `revisions/<id>.routes.json` file. Version 2 is bound to
 * its revision: the revision records the file's SHA-256 as `routesDigest`.
 */
export const ROUTES_FORMAT = "rukh.cli-routes/2";

/**
 * The CLI route table of the active revision as cached at publication, read
 * without verifying any package (the core verifies at invoke time).
 *
 * @example
 * const active = await readActiveRoutes(root);
 * if (active !== null) for (const r of active.routes.commands) console.log(r.path.join(" "));
 */
export interface ActiveRoutes {
  readonly revisionId: string;
  readonly commandGeneration: number;
  readonly routes: CliRouteTable;
}

/**
 * The text written next to a revision, JSON lines: first a header
 * `{ format, commandGeneration, groups, commands: [{ path, aliases, summary }], sizes }`
 * (enough to list, route and complete command paths; `sizes` are the UTF-8
 * byte lengths of the command lines), then one line per command with its full
 * `CliRoute`, in header order. A reader that only lists or routes reads the
 * header and at most one command line.
 */
export function routesFileText(commandGeneration: number, routes: CliRouteTable): string {
  const lines = routes.commands.map((c) => JSON.stringify(c));
  const header = {
    format: ROUTES_FORMAT,
    commandGeneration,
    groups: routes.groups,
    commands: routes.commands.map((c) => ({
      path: c.path,
      aliases: c.aliases,
      summary: c.cli.summary,
    })),
    sizes: lines.map((l) => Buffer.byteLength(l)),
  };
  return `${[JSON.stringify(header), ...lines].join("\n")}\n`;
}

function errno(e: unknown): string | undefined {
  return (e as { code?: string }).code;
}

/**
 * Reads `active` and `revisions/<id>.routes.json` only: the fast path for
 * listing, help and completion, which must never load extension code or
 * re-verify the store. Returns `null` before the first publication and for a
 * revision published without a route cache (fall back to
 * `StateDirectory.projection()`). A file larger than {@link ROUTES_MAX_BYTES},
 * unparsable, or naming another revision fails with `invalid_state`.
 *
 * @example
 * const active = await readActiveRoutes(resolveStateDir({ brand: "acme" }));
 */
export async function readActiveRoutes(root: string): Promise<ActiveRoutes | null> {
  let active: Buffer;
  try {
    active = await readFile(join(root, "active"));
  } catch (e) {
    if (errno(e) === "ENOENT") return null;
    throw ioError("cannot read active", e);
  }
  const id = active.length <= 128 ? active.toString("latin1").trimEnd() : "";
  if (!REVISION_ID.test(id))
    throw new ProfileError("invalid_state", "the active file does not name a revision id");
  // The revision (content-addressed: it must hash to its id) names the cache's digest.
  let revision: { routesDigest?: unknown; commandGeneration?: unknown };
  try {
    const parsed = parseJson(await readFile(join(root, "revisions", `${id}.json`)), {
      limits: { maxBytes: REVISION_MAX_BYTES, maxNodes: 2_000_000 },
    });
    if (!parsed.ok || fingerprint(parsed.value) !== id) throw new Error("does not hash to its id");
    revision = parsed.value as typeof revision;
  } catch (cause) {
    throw new ProfileError("invalid_state", `revision ${id} cannot be read or verified`, { cause });
  }
  // A revision of an earlier version records no digest: its cache is not trusted.
  if (typeof revision.routesDigest !== "string") return null;
  let bytes: Buffer;
  try {
    bytes = await readFile(join(root, "revisions", `${id}.routes.json`));
  } catch (e) {
    if (errno(e) === "ENOENT") return null;
    throw ioError(`cannot read the route cache of revision ${id}`, e);
  }
  if (bytes.length > ROUTES_MAX_BYTES)
    throw new ProfileError(
      "invalid_state",
      `the route cache of revision ${id} is ${bytes.length} bytes; expected at most ${ROUTES_MAX_BYTES}`,
    );
  if (sha256Hex(bytes) !== revision.routesDigest)
    throw new ProfileError(
      "invalid_state",
      `the route cache of revision ${id} does not match the digest its revision records (edited or damaged)`,
    );
  let lines: unknown[];
  try {
    lines = bytes
      .toString("utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l));
  } catch (cause) {
    throw new ProfileError("invalid_state", `the route cache of revision ${id} is not JSON lines`, {
      cause,
    });
  }
  const [v, ...commands] = lines as [
    {
      format?: unknown;
      commandGeneration?: unknown;
      groups?: unknown;
      commands?: unknown;
    } | null,
    ...CliRouteTable["commands"],
  ];
  if (
    typeof v !== "object" ||
    v === null ||
    v.format !== ROUTES_FORMAT ||
    v.commandGeneration !== revision.commandGeneration ||
    !Array.isArray(v.groups) ||
    !Array.isArray(v.commands) ||
    v.commands.length !== commands.length ||
    commands.some((c) => typeof c !== "object" || c === null || !Array.isArray(c.path))
  )
    throw new ProfileError(
      "invalid_state",
      `the route cache of revision ${id} is not a ${ROUTES_FORMAT} file for that revision`,
    );
  return {
    revisionId: id,
    commandGeneration: v.commandGeneration as number,
    routes: { commands, groups: v.groups as CliRouteTable["groups"] },
  };
}
