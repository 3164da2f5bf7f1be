// `doctor`: what the state directory, trust, packages, journal and this
// machine's confinement look like, in the words a call would meet them; with
// `--repair`, first doing what the next start-up would and clearing debris.
// Its steps: repair (only with --repair), then each check in turn — Node,
// the state directory and its journal directory, the active profile, the
// installed packages and the route cache, free space, the journal and its
// clock, the publication lock, temporary files, and what strict
// confinement this machine supports — each marked ok, note or FAIL. It
// imports the kit room.

import { accessSync, constants, existsSync, realpathSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import type { CliBuiltin } from "@rukh/cli";
import type { JournalReport } from "@rukh/core";
import type { StateDirectory, StateDirProblem, StatePlaces } from "@rukh/profile";
import { type AdminBody, bool, plural as n, OK, type Profile, print, STATE } from "../kit/index.js";

/** One finding: `note` is worth knowing but not a fault (exit 0). */
interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly note?: boolean;
  readonly detail: string;
}

/**
 * The Node.js release lines Rukh is tested on (every package's `engines`
 * names the same); on another, `doctor` says it is untested.
 */
export const TESTED_NODE_LINES = [20, 22, 24, 26] as const;

/** A finding worth knowing that is not a fault. */
class Note {
  constructor(readonly detail: string) {}
}

/** The `doctor` command. */
export function doctorBuiltin(guarded: (fn: AdminBody) => CliBuiltin["run"]): CliBuiltin {
  return {
    path: ["doctor"],
    summary:
      "Check the state directory, trust, installed packages, journal and enforcement support; --repair fixes what it safely can",
    inputs: [bool("repair", "First fix what can safely be fixed, and say what")],
    // It reports an unsafe state directory itself, and then repairs nothing.
    checksStateItself: true,
    run: guarded(async (ctx, state, profile) => {
      const unsafe = profile.stateDirProblems(state.root, { deep: true });
      const repaired =
        ctx.inputs.repair !== true
          ? undefined
          : unsafe.length > 0
            ? ["nothing: the state directory is not safe to act on (see its line below)"]
            : await repair(state, profile);
      const checks = await doctor(state, profile, unsafe);
      const lines = [
        ...(repaired === undefined ? [] : repaired.map((r) => `fixed  ${r}`)),
        ...checks.map((c) => `${mark(c)}  ${c.name}: ${c.detail}`),
      ];
      print(ctx, lines.join("\n"), {
        ...(repaired !== undefined && { repaired }),
        checks,
      });
      return checks.every((c) => c.ok) ? OK : STATE;
    }),
  };
}

function mark(c: Check): string {
  if (!c.ok) return "FAIL";
  return c.note ? "note" : "ok  ";
}

/** What `--repair` does, in the order it does it; each line says what changed. */
async function repair(
  state: StateDirectory,
  { removeTemporaryDebris }: Profile,
): Promise<string[]> {
  const done: string[] = [];
  const { repairJournal } = await import("@rukh/core");
  const places = await state.places();
  if (places.refusal !== undefined) throw new Error(places.refusal);
  const j = await repairJournal(places.journalRoot, state.locks, state);
  if (j.finalized.length > 0)
    done.push(
      `journal: finalized ${n(j.finalized.length, "call")} of lost hosts as execution_failed/host_lost (${j.finalized.join(", ")})`,
    );
  if (j.quarantined.length > 0)
    done.push(
      `journal: set aside ${n(j.quarantined.length, "damaged segment")} (${j.quarantined.join(", ")})`,
    );
  // A read-only state directory is a shipped copy: it is repaired where it was made.
  if (places.readOnly !== undefined)
    done.push(
      `state directory: ${places.root} is read-only (${places.readOnly}); nothing in it was repaired`,
    );
  else if ((await state.activeRevisionId()) !== null) {
    const routes = await state.checkRouteCache({ repair: true });
    if (routes === "rewritten")
      done.push(
        "route cache: rewrote the CLI's index of command paths and the revision's catalog from the verified descriptors",
      );
  }
  const removed = places.readOnly === undefined ? await removeTemporaryDebris(state.root) : [];
  if (removed.length > 0)
    done.push(
      `temporary files: removed ${n(removed.length, "file")} left by writers that are gone (${removed.reduce((sum, d) => sum + d.bytes, 0)} bytes)`,
    );
  if (done.length === 0) done.push("nothing needed repair");
  return done;
}

/** The journal's line: its history, and what a lost host or a damaged segment left. */
function journalDetail(j: JournalReport): string | Note {
  const history = `${n(j.archiveSegments, "archive segment")} (${Math.ceil(j.archiveBytes / 1024)} KiB), ${j.liveSegments} live`;
  if (j.quarantined.length > 0)
    throw new Error(
      `${history}; ${n(j.quarantined.length, "damaged segment")} set aside in ${j.quarantineDir} (${j.quarantined.join(", ")}): their readable records were recovered; keep or delete them`,
    );
  if (j.lostHosts > 0)
    return new Note(
      `${history}; ${n(j.lostHosts, "host")} gone with calls not yet finalized: the next call, or \`doctor --repair\`, finishes them`,
    );
  return history;
}

/** A span in the largest whole unit that says it: days, hours or minutes. */
function span(ms: number): string {
  if (ms >= 2 * 86_400_000) return n(Math.floor(ms / 86_400_000), "day");
  if (ms >= 2 * 3_600_000) return n(Math.floor(ms / 3_600_000), "hour");
  return n(Math.floor(ms / 60_000), "minute");
}

/** The clock's line: a skew from the journal's newest record stops retention by age, so it is named. */
function clockDetail(j: JournalReport): string | Note {
  if (j.newestRecordAt === null) return "no journal record to compare with";
  if (j.clockSkew === null) return `agrees with the journal's newest record (${j.newestRecordAt})`;
  const where = j.clockSkew.direction === "ahead" ? "ahead of" : "behind";
  return new Note(
    `this clock is ${span(j.clockSkew.ms)} ${where} the journal's newest record (${j.newestRecordAt}): retention deletes nothing by age until they agree; check the system clock`,
  );
}

/** The state directory's line, once it exists: safe, writable, or a read-only copy whose hosts write elsewhere. */
function stateDirDetail(
  places: StatePlaces,
  unsafe: readonly StateDirProblem[],
  { placesLine, stateDirMessage }: Profile,
): string {
  // Everything in it, like ssh checks its files: another user's hand in it is a failure.
  if (unsafe.length > 0) throw new Error(stateDirMessage(places.root, unsafe));
  // A replica's shipped copy: fine while its hosts have somewhere else to write.
  if (places.refusal !== undefined) throw new Error(places.refusal);
  if (places.readOnly !== undefined) return placesLine(places);
  accessSync(places.root, constants.W_OK);
  return places.root;
}

/** Where hosts write when not in the state directory, checked as the state directory is. */
function journalDirDetail(
  places: StatePlaces,
  { stateDirMessage, stateDirProblems }: Profile,
): string {
  const at = places.journalRoot;
  const unsafe = stateDirProblems(at, { deep: true });
  if (unsafe.length > 0) throw new Error(stateDirMessage(at, unsafe, "journal directory"));
  return `${at} (${places.journalDir?.setBy})${existsSync(at) ? "" : ": made by the first host"}`;
}

async function doctor(
  state: StateDirectory,
  profile: Profile,
  unsafe: readonly StateDirProblem[],
): Promise<Check[]> {
  const { checkStoredPackage, findTemporaryDebris, stateLocks } = profile;
  const checks: Check[] = [];
  const check = async (name: string, fn: () => Promise<string | Note> | string | Note) => {
    try {
      const found = await fn();
      checks.push(
        found instanceof Note
          ? { name, ok: true, note: true, detail: found.detail }
          : { name, ok: true, detail: found },
      );
    } catch (e) {
      checks.push({ name, ok: false, detail: (e as Error).message });
    }
  };
  await check("node", () => {
    const line = Number(process.versions.node.split(".")[0]);
    const running = `${process.version} (${process.execPath})`;
    return (TESTED_NODE_LINES as readonly number[]).includes(line)
      ? running
      : new Note(
          `${running} is not a release line Rukh is tested on (${TESTED_NODE_LINES.join(", ")}); it may work, but nothing proves it`,
        );
  });
  // A new owner's first run: nothing is wrong, there is just nothing yet.
  const fresh = !existsSync(state.root);
  const places = await state.places();
  await check("state directory", () =>
    fresh
      ? new Note(
          `${state.root} does not exist yet; the first \`trust add\` or \`ext install\` creates it`,
        )
      : stateDirDetail(places, unsafe, profile),
  );
  if (places.journalDir !== undefined)
    await check("journal directory", () => journalDirDetail(places, profile));
  await check("active profile", async () => {
    const id = await state.activeRevisionId();
    // A new owner's state, not a fault: there is just nothing to check yet.
    if (id === null) return new Note("nothing published yet (run `trust add` and `ext install`)");
    const rev = await state.readRevision(id);
    return `${id.slice(0, 12)}, ${n(rev.extensions.length, "extension")}, ${n(rev.config.trustedPublishers.length, "trusted publisher")}`;
  });
  await check("installed packages", async () => {
    const id = await state.activeRevisionId();
    if (id === null) return "none";
    // Every package on its own, so that each modified one is named with its repair.
    const bad: string[] = [];
    for (const e of (await state.readRevision(id)).extensions)
      await checkStoredPackage(state.root, e.digest, { full: true }).catch((err: Error) =>
        bad.push(
          `${e.id}@${e.version} (${err.message}): install its package again to restore it, or remove it`,
        ),
      );
    if (bad.length > 0) throw new Error(bad.join("; "));
    const projection = await state.projection();
    return `every file hashed against its digest; ${n(projection.routes.commands.length, "command")}, ${n(projection.tools.length, "MCP tool")}`;
  });
  await check("route cache", async () => {
    const routes = await state.checkRouteCache();
    if (routes === "differs")
      throw new Error(
        "the CLI's index of command paths or the revision's catalog differs from the verified descriptors (edited or damaged); `doctor --repair` rewrites it",
      );
    if (routes === "unbound")
      return new Note(
        "published by an earlier version, so not bound to its revision: the CLI and tool lists read the descriptors instead until the next publication (`profile rollback` to the active revision publishes it again)",
      );
    return routes === "missing"
      ? new Note(
          "missing: the CLI reads the descriptors instead (slower); `doctor --repair` writes it",
        )
      : "matches the verified descriptors";
  });
  await check("free space", () => {
    // Where the journal is written; before the directory exists, where it will be made.
    let at = places.journalRoot;
    while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
    const { bavail, bsize } = statfsSync(at);
    const free = bavail * bsize;
    const mib = `${Math.floor(free / 1024 / 1024)} MiB free`;
    // With less than a record's room, calls end journal_failed and diagnostics are dropped.
    if (free < 1024 * 1024)
      throw new Error(
        `only ${free} bytes free under ${places.journalRoot}: calls will end journal_failed and diagnostics will be dropped`,
      );
    if (free < 64 * 1024 * 1024)
      return new Note(`${mib}: installs and the journal will soon run out of room`);
    return mib;
  });
  const { describeJournal, describeConfinement } = await import("@rukh/core");
  const journal = describeJournal(places.journalRoot, state.locks);
  await check("journal", async () => journalDetail(await journal));
  await check("journal clock", async () => clockDetail(await journal));
  await check("publication lock", async () => {
    if (fresh) return "free (no state directory yet)";
    // Held by the kernel for a live publisher only: it is never stale, so there is nothing to break.
    const lock = await stateLocks(realpathSync(state.root), state.locks).hold("publication");
    if (lock === null) return new Note("held by a publication in progress");
    lock.release();
    return "free";
  });
  await check("temporary files", async () => {
    const debris = await findTemporaryDebris(state.root);
    if (debris.length === 0) return "none left behind";
    const bytes = debris.reduce((sum, d) => sum + d.bytes, 0);
    return new Note(
      `${n(debris.length, "file")} left by writers that are gone (${bytes} bytes): \`doctor --repair\` removes them`,
    );
  });
  // The same detection the core admits calls with: what doctor says is what a call gets.
  const active = await state.activeRevisionId().catch(() => null);
  const configured =
    active === null ? undefined : (await state.readRevision(active)).config.sandbox?.program;
  // Nothing is written where nothing exists yet: doctor only looks.
  const probed = !fresh && places.refusal === undefined && existsSync(places.journalRoot);
  const c = await describeConfinement(configured, probed ? places.journalRoot : undefined);
  // Unavailable confinement is not a fault: strict calls are then rejected, never run unconfined.
  await check("strict profile", () =>
    c.strict.available
      ? `available: ${c.strict.detail}`
      : new Note(`unavailable, strict commands will be rejected: ${c.strict.reason}`),
  );
  await check("strict Node commands", () =>
    c.strictNode.available
      ? `available: ${c.strictNode.detail}`
      : new Note(`unavailable, strict Node commands will be rejected: ${c.strictNode.reason}`),
  );
  await check(
    "host-trusted process trees",
    () => `${c.hostTrustedTree.mechanism}: ${c.hostTrustedTree.detail}`,
  );
  await check("resource limits", () =>
    c.resourceLimits.enforced
      ? c.resourceLimits.detail
      : `not enforced for host-trusted commands: ${c.resourceLimits.reason}`,
  );
  return checks;
}
