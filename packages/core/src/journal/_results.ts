// The validated results of calls, kept beside the journal for a while so that
// they can be read again: by the state directory's owner on the CLI, and by
// the binding that made a call. One file a call, written whole (a temporary
// file, flushed, then renamed) before the call's final record, owner-only.

import { constants, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { open, readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { COMMAND_RESULT_MAX_BYTES, type CommandResult } from "@rukh/command-result";
import type { OwnerConfig } from "@rukh/profile";
import type { HostBinding, OutcomeKind } from "../contract/index.js";
import type { Logger } from "../diagnostics/index.js";
import { archiveClock } from "./_archive.js";
import { journalPaths } from "./_journal.js";
import { writeWholeSoon } from "./_whole-file.js";

/** The owner's bounds on kept results (see `ResultsRetention` in @rukh/profile). */
export interface ResultLimits {
  /** A result larger than this (canonical JSON bytes) is not kept; 0 keeps none. */
  readonly maxResultBytes: number;
  /** All kept results together; the oldest go first. */
  readonly maxBytes: number;
  /** Age by the journal's time, counted only while this process's clock agrees with it. */
  readonly maxAgeMs: number;
}

const DAY_MS = 86_400_000;
/** All kept results together, by default (64 MiB). */
export const RESULTS_MAX_BYTES_DEFAULT = 67_108_864;
/** How long a result is kept, by default (7 days). */
export const RESULTS_MAX_AGE_DAYS_DEFAULT = 7;
/** No kept-result file is read past this many bytes (a result is at most 16 MiB, plus its header). */
const RESULT_FILE_MAX_BYTES = 16_777_216 + 65_536;

/**
 * The result limits `config` sets (none: the defaults); a result is never
 * kept past the owner's result limit itself (`limits.maxCommandResultBytes`).
 */
export function resultLimitsOf(
  config: Pick<OwnerConfig, "journal" | "limits"> | undefined,
): ResultLimits {
  const r = config?.journal?.results;
  const resultMax = config?.limits?.maxCommandResultBytes ?? COMMAND_RESULT_MAX_BYTES;
  return {
    maxResultBytes: Math.min(r?.maxResultBytes ?? resultMax, resultMax),
    maxBytes: r?.maxBytes ?? RESULTS_MAX_BYTES_DEFAULT,
    maxAgeMs: (r?.maxAgeDays ?? RESULTS_MAX_AGE_DAYS_DEFAULT) * DAY_MS,
  };
}

/**
 * One call's kept result, or the note that it was too large to keep: who
 * made the call (its binding), which command, when it ended and how.
 */
export interface KeptResult {
  readonly invocationId: string;
  readonly command: string;
  /** When the result was kept: the call's end, on the keeping host's clock. */
  readonly at: string;
  readonly host: string;
  readonly by: {
    readonly subject: string;
    readonly actor: string;
    readonly taskAuthorityRef: string;
    readonly preset: string;
  };
  readonly outcome: OutcomeKind;
  /** The validated result; absent when it was not kept. */
  readonly result?: CommandResult;
  /** Why the result is not here: larger than the owner's `maxResultBytes` (`bytes` says how large). */
  readonly notKept?: "too_large";
  readonly bytes?: number;
}

/** The directory of kept results under a journal root. */
export const resultsDir = (journalRoot: string) => join(journalPaths(journalRoot).dir, "results");

/** Invocation ids are UUIDs: nothing else names a file here. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const fileOf = (journalRoot: string, id: string) => join(resultsDir(journalRoot), `${id}.json`);

/** A host prunes after this many results it kept… */
const PRUNE_EVERY = 64;
/** …and at its first, when no host has pruned for this long (10 minutes): a CLI call is a host of one call. */
const PRUNE_PERIOD_MS = 600_000;

/**
 * A host's keeper of results. `keep` resolves once the result is on disk
 * (its caller writes the final record after) and never fails the call: a full
 * disk leaves the result unkept, logged. Every {@link PRUNE_EVERY} keeps it
 * prunes past the owner's limits, one prune at a time.
 */
export class ResultKeeper {
  readonly #journalRoot: string;
  readonly #host: string;
  readonly #logger: Logger;
  #sincePrune = 0;
  #pruning: Promise<unknown> = Promise.resolve();

  constructor(journalRoot: string, host: string, logger: Logger) {
    this.#journalRoot = journalRoot;
    this.#host = host;
    this.#logger = logger;
  }

  /** Keeps `result` of a call under `limits`; says whether it is on disk. */
  async keep(
    call: {
      invocationId: string;
      command: string;
      binding: HostBinding;
      outcome: OutcomeKind;
      result: CommandResult;
    },
    limits: ResultLimits,
  ): Promise<boolean> {
    if (limits.maxResultBytes === 0) return false;
    const head = {
      invocationId: call.invocationId,
      command: call.command,
      at: new Date().toISOString(),
      host: this.#host,
      by: {
        subject: call.binding.subject,
        actor: call.binding.actor,
        taskAuthorityRef: call.binding.taskAuthorityRef,
        preset: call.binding.preset,
      },
      outcome: call.outcome,
    };
    const bytes = Buffer.byteLength(JSON.stringify(call.result));
    const kept: KeptResult =
      bytes > limits.maxResultBytes
        ? { ...head, notKept: "too_large", bytes }
        : { ...head, result: call.result };
    try {
      await writeWholeSoon(
        fileOf(this.#journalRoot, call.invocationId),
        `${JSON.stringify(kept)}\n`,
      );
    } catch (e) {
      this.#logger.error(
        { err: e, invocationId: call.invocationId },
        "a call's result could not be kept (is the disk full?); its outcome stands",
      );
      return false;
    }
    this.#sincePrune++;
    if (this.#sincePrune >= PRUNE_EVERY || (this.#sincePrune === 1 && this.#pruneDue()))
      this.prune(limits);
    return kept.result !== undefined;
  }

  /** Whether no host pruned for {@link PRUNE_PERIOD_MS}, by the mark each prune leaves. */
  #pruneDue(): boolean {
    try {
      return Date.now() - statSync(this.#mark).mtimeMs > PRUNE_PERIOD_MS;
    } catch {
      return true;
    }
  }

  get #mark(): string {
    return join(resultsDir(this.#journalRoot), ".pruned");
  }

  /** Prunes past `limits` after any prune under way; a failure is logged. */
  prune(limits: ResultLimits): Promise<void> {
    this.#sincePrune = 0;
    try {
      writeFileSync(this.#mark, "", { mode: 0o600 });
      const now = new Date();
      utimesSync(this.#mark, now, now);
    } catch {}
    const run = this.#pruning.then(() =>
      pruneResults(this.#journalRoot, limits, this.#host).catch((e) =>
        this.#logger.error(
          { err: e },
          "kept results could not be pruned; the next prune tries again",
        ),
      ),
    );
    this.#pruning = run;
    return run.then(() => {});
  }

  /** Resolves once no prune runs. */
  settled(): Promise<void> {
    return this.#pruning.then(() => {});
  }
}

/**
 * The kept result of `invocationId` (or the note that it was too large),
 * `undefined` when none is kept — never kept, removed by retention, or past
 * `limits.maxAgeMs` now (then removed).
 */
export async function readKeptResult(
  journalRoot: string,
  invocationId: string,
  limits?: ResultLimits,
): Promise<KeptResult | undefined> {
  if (!ID.test(invocationId)) return undefined;
  const file = fileOf(journalRoot, invocationId);
  const kept = await readBoundedJson(file);
  if (kept === undefined || kept.invocationId !== invocationId) return undefined;
  if (limits !== undefined) {
    const clock = await archiveClock(journalRoot, "");
    const at = Date.parse(kept.at);
    if (clock.kind === "agrees" && clock.journalTime - at > limits.maxAgeMs) {
      await unlink(file).catch(() => {});
      return undefined;
    }
  }
  return kept;
}

async function readBoundedJson(file: string): Promise<KeptResult | undefined> {
  let h: Awaited<ReturnType<typeof open>>;
  try {
    h = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const s = await h.stat();
    if (!s.isFile() || s.size > RESULT_FILE_MAX_BYTES) return undefined;
    const buf = Buffer.alloc(s.size);
    const { bytesRead } = await h.read(buf, 0, s.size, 0);
    return JSON.parse(buf.subarray(0, bytesRead).toString("utf8")) as KeptResult;
  } catch {
    return undefined;
  } finally {
    await h.close();
  }
}

/**
 * Removes kept results past `limits`: the oldest (by modification time)
 * while all together exceed `maxBytes`; and those older than `maxAgeMs` by
 * the journal's time, only while this process's clock agrees with it (a
 * clock set far ahead removes nothing by age). Returns how many went.
 */
export async function pruneResults(
  journalRoot: string,
  limits: ResultLimits,
  host: string,
): Promise<number> {
  const dir = resultsDir(journalRoot);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".json"));
  } catch {
    return 0;
  }
  const files = (
    await Promise.all(
      names.map(async (n) => {
        const s = await stat(join(dir, n)).catch(() => undefined);
        return s === undefined ? [] : [{ file: join(dir, n), size: s.size, at: s.mtimeMs }];
      }),
    )
  )
    .flat()
    .sort((a, b) => a.at - b.at);
  const clock = await archiveClock(journalRoot, host);
  let total = files.reduce((sum, f) => sum + f.size, 0);
  let removed = 0;
  for (const f of files) {
    const old = clock.kind === "agrees" && clock.journalTime - f.at > limits.maxAgeMs;
    if (total <= limits.maxBytes && !old) continue;
    await unlink(f.file).catch(() => {});
    total -= f.size;
    removed++;
  }
  return removed;
}

/** Removes the kept results of `ids` (calls a recovering host finalized as lost: they have none). */
export function dropKeptResults(journalRoot: string, ids: readonly string[]): void {
  for (const id of ids) if (ID.test(id)) rmSync(fileOf(journalRoot, id), { force: true });
}
