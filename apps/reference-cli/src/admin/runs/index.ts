// `runs`: the journal for people and scripts — what ran, for whom, and how it ended.
// Its steps: the flags read as one filter, then list, show one run, or tail
// (with --follow, each call as it starts and ends). It imports the kit room.

import { type CliBuiltin, printEnvelope, resultText, terminalLine } from "@rukh/cli";
import type { RunSummary } from "@rukh/core";
import type { InputValue } from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";
import {
  type AdminBody,
  arg,
  bool,
  count,
  flag,
  OK,
  oneOf,
  print,
  text,
  UsageError,
} from "../kit/index.js";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/;

/** The `runs list` flags as a filter, each checked against what it may be. */
function runFilter(
  values: Readonly<Record<string, InputValue>>,
  core: typeof import("@rukh/core"),
): import("@rukh/core").RunFilter {
  const str = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  const oneOf = <T extends string>(k: string, allowed: readonly T[]): T | undefined => {
    const v = str(k);
    if (v !== undefined && !allowed.includes(v as T))
      throw new UsageError(`--${k} ${JSON.stringify(v)}: expected one of ${allowed.join(", ")}`);
    return v as T | undefined;
  };
  const limit = typeof values.limit === "number" ? values.limit : undefined;
  for (const k of ["since", "until"])
    if (str(k) !== undefined && !ISO_TIME.test(str(k)!))
      throw new UsageError(
        `--${k} ${JSON.stringify(str(k))}: expected an ISO 8601 time such as 2026-12-01T10:00:00Z`,
      );
  const surface = oneOf("surface", ["cli", "mcp"] as const);
  const outcome = oneOf("outcome", core.OUTCOME_KINDS);
  const reason = oneOf("reason", Object.values(core.OUTCOME_REASONS).flat());
  return {
    ...(limit !== undefined && { limit }),
    ...(surface !== undefined && { surface }),
    ...(outcome !== undefined && { outcome }),
    ...(reason !== undefined && { reason }),
    ...(str("command") !== undefined && { command: str("command")! }),
    ...(str("preset") !== undefined && { preset: str("preset")! }),
    ...(str("since") !== undefined && { since: str("since")! }),
    ...(str("until") !== undefined && { until: str("until")! }),
  };
}

/** The filters `runs list` and `runs tail` share (outcome, reason and times are checked by runFilter). */
const FILTERS: readonly JsonObject[] = [
  count("limit", "At most this many runs", { minimum: 1, maximum: 10_000 }),
  oneOf("surface", "Only calls made on this surface", ["cli", "mcp"]),
  flag(
    "outcome",
    "Only calls that ended so (succeeded, command_failed, execution_failed, rejected, cancelled)",
    { maxLength: 64 },
  ),
  flag("reason", "Only calls that ended for this reason (host_lost, deadline, …)", {
    maxLength: 64,
  }),
  flag("command", "Only calls of this command identity", { maxLength: 512 }),
  flag("preset", "Only calls under this task preset", { maxLength: 64 }),
  flag("since", "Only calls from this ISO 8601 time on", { maxLength: 64 }),
  flag("until", "Only calls up to this ISO 8601 time", { maxLength: 64 }),
];

/** One run on one line: id, time, surface, command, outcome, duration, actor. */
function runLine(r: RunSummary): string {
  const ended = r.outcome === undefined ? "running or lost" : `${r.outcome}/${r.reason}`;
  const took = r.durationMs === undefined ? "" : `  ${r.durationMs} ms`;
  return `${r.invocationId}  ${r.startedAt ?? r.endedAt ?? "?"}  ${r.surface ?? "-"}  ${terminalLine(r.command ?? "-")}${r.dev === true ? " [dev]" : ""}  ${ended}${took}  ${terminalLine(r.actor ?? "")}`;
}

/** Every field of one run, one per line; inputs and counts as JSON. */
function runDetails(run: RunSummary): string {
  return Object.entries(run)
    .map(([k, v]) => `${k}: ${terminalLine(typeof v === "object" ? JSON.stringify(v) : String(v))}`)
    .join("\n");
}

/** Why `runs show --result` has no result to print for `run`. */
function notKept(
  run: RunSummary,
  kept: import("@rukh/core").KeptResult | undefined,
  limits: import("@rukh/core").ResultLimits,
): string {
  const id = run.invocationId;
  if (kept?.notKept === "too_large")
    return `the result of ${id} was not kept: it was ${kept.bytes} bytes, above journal.results.maxResultBytes (${limits.maxResultBytes})`;
  if (run.outcome === undefined)
    return `${id} has not ended (or its host was lost): it has no result yet`;
  if (run.outcome !== "succeeded" && run.outcome !== "command_failed")
    return `${id} ended ${run.outcome}/${run.reason}: it had no result to keep`;
  return `no result of ${id} is kept: past journal.results' limits (${limits.maxAgeMs / 86_400_000} days, ${limits.maxBytes} bytes in all), or it could not be written`;
}

/** The `runs` commands. */
export function runsBuiltins(guarded: (fn: AdminBody) => CliBuiltin["run"]): CliBuiltin[] {
  return [
    {
      path: ["runs", "list"],
      summary:
        "List invocations from the journal, newest first: who ran what, when, and how it ended",
      inputs: FILTERS,
      run: guarded(async (ctx, state) => {
        const core = await import("@rukh/core");
        const filter = runFilter(ctx.inputs, core);
        const runs = await core.listRuns((await state.places()).journalRoot, filter);
        print(ctx, runs.map(runLine).join("\n") || "no invocations", {
          runs,
        });
        return OK;
      }),
    },
    {
      path: ["runs", "show"],
      summary: "Show one invocation from the journal",
      inputs: [
        arg("invocation_id", "The invocation id a caller was given", 0, { maxLength: 64 }),
        bool(
          "result",
          "Print the call's kept result (its validated result, as the call printed it)",
        ),
      ],
      run: guarded(async (ctx, state) => {
        const id = text(ctx.inputs, "invocation_id")!;
        const core = await import("@rukh/core");
        const { journalRoot } = await state.places();
        const run = await core.findRun(journalRoot, id);
        if (run === undefined)
          throw new UsageError(`no invocation ${JSON.stringify(id)} in the journal`, {
            see: ["runs", "list"],
          });
        if (ctx.inputs.result !== true) {
          print(ctx, runDetails(run), { run });
          return OK;
        }
        const active = await state.activeRevisionId();
        const config = active === null ? undefined : (await state.readRevision(active)).config;
        const limits = core.resultLimitsOf(config);
        const kept = await core.readKeptResult(journalRoot, id, limits);
        if (kept?.result === undefined)
          throw new UsageError(notKept(run, kept, limits), { see: ["runs", "show", id] });
        if (ctx.json) printEnvelope(ctx, { result: { run, result: kept.result } });
        else ctx.stdout.write(resultText(kept.result, ctx.outTTY === true));
        return OK;
      }),
    },
    {
      path: ["runs", "tail"],
      summary:
        "Show the newest invocations oldest first; with --follow, keep printing each one as it starts and ends",
      inputs: [
        ...FILTERS,
        bool("follow", "Keep printing each call as it starts and ends", { short: "f" }),
      ],
      run: guarded(async (ctx, state) => {
        const core = await import("@rukh/core");
        const filter = runFilter(ctx.inputs, core);
        const { journalRoot } = await state.places();
        const history = async () => {
          const runs = (
            await core.listRuns(journalRoot, { ...filter, limit: filter.limit ?? 10 })
          ).reverse();
          for (const run of runs)
            if (ctx.json) printEnvelope(ctx, { result: { event: "listed", run } });
            else ctx.stdout.write(`${runLine(run)}\n`);
          return new Set(runs.filter((r) => r.outcome !== undefined).map((r) => r.invocationId));
        };
        if (ctx.inputs.follow !== true) {
          await history();
          return OK;
        }
        let ready!: () => void;
        const marked = new Promise<void>((res) => {
          ready = res;
        });
        const events = core.followRuns(journalRoot, {
          filter,
          signal: ctx.signal,
          onReady: () => ready(),
        });
        const first = events.next();
        await Promise.race([marked, first]);
        const told = await history();
        for (let e = await first; !e.done; e = await events.next()) {
          const { event, run } = e.value;
          if (event === "ended" && told.delete(run.invocationId)) continue;
          if (ctx.json) printEnvelope(ctx, { result: e.value });
          else ctx.stdout.write(`${runLine(run)}\n`);
        }
        return OK;
      }),
    },
  ];
}
