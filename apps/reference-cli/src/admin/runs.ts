// `runs`: the journal for people and scripts — what ran, for whom, and how it ended.

import type { CliBuiltin } from "@rukh/cli";
import type { RunSummary } from "@rukh/core";
import { type AdminBody, envelope, OK, parse, print, safe, UsageError } from "./_kit.js";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/;

/** The `runs list` flags as a filter, each checked against what it may be. */
function runFilter(
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
  core: typeof import("@rukh/core"),
): import("@rukh/core").RunFilter {
  const str = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  const oneOf = <T extends string>(k: string, allowed: readonly T[]): T | undefined => {
    const v = str(k);
    if (v !== undefined && !allowed.includes(v as T))
      throw new UsageError(`--${k} ${JSON.stringify(v)}: expected one of ${allowed.join(", ")}`);
    return v as T | undefined;
  };
  const limit = str("limit");
  if (limit !== undefined && !/^[1-9][0-9]{0,4}$/.test(limit))
    throw new UsageError(`--limit ${JSON.stringify(limit)}: expected 1 to ${core.RUNS_MAX_LIMIT}`);
  for (const k of ["since", "until"])
    if (str(k) !== undefined && !ISO_TIME.test(str(k)!))
      throw new UsageError(
        `--${k} ${JSON.stringify(str(k))}: expected an ISO 8601 time such as 2026-12-01T10:00:00Z`,
      );
  const surface = oneOf("surface", ["cli", "mcp"] as const);
  const outcome = oneOf("outcome", core.OUTCOME_KINDS);
  const reason = oneOf("reason", Object.values(core.OUTCOME_REASONS).flat());
  return {
    ...(limit !== undefined && { limit: Math.min(Number(limit), core.RUNS_MAX_LIMIT) }),
    ...(surface !== undefined && { surface }),
    ...(outcome !== undefined && { outcome }),
    ...(reason !== undefined && { reason }),
    ...(str("command") !== undefined && { command: str("command")! }),
    ...(str("preset") !== undefined && { preset: str("preset")! }),
    ...(str("since") !== undefined && { since: str("since")! }),
    ...(str("until") !== undefined && { until: str("until")! }),
  };
}

const FILTER_OPTIONS = {
  limit: { type: "string" },
  surface: { type: "string" },
  outcome: { type: "string" },
  reason: { type: "string" },
  command: { type: "string" },
  preset: { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
} as const;

const FILTER_USAGE =
  "[--surface cli|mcp] [--outcome O] [--reason R] [--command ID] [--preset P] [--since ISO] [--until ISO]";

/** One run on one line: id, time, surface, command, outcome, duration, actor. */
function runLine(r: RunSummary): string {
  const ended = r.outcome === undefined ? "running or lost" : `${r.outcome}/${r.reason}`;
  const took = r.durationMs === undefined ? "" : `  ${r.durationMs} ms`;
  return `${r.invocationId}  ${r.startedAt ?? r.endedAt ?? "?"}  ${r.surface ?? "-"}  ${safe(r.command ?? "-")}  ${ended}${took}  ${safe(r.actor ?? "")}`;
}

/** Every field of one run, one per line; inputs and counts as JSON. */
function runDetails(run: RunSummary): string {
  return Object.entries(run)
    .map(([k, v]) => `${k}: ${safe(typeof v === "object" ? JSON.stringify(v) : String(v))}`)
    .join("\n");
}

/** The `runs` commands. */
export function runsBuiltins(guarded: (fn: AdminBody) => CliBuiltin["run"]): CliBuiltin[] {
  return [
    {
      path: ["runs", "list"],
      summary:
        "List invocations from the journal, newest first: who ran what, when, and how it ended",
      usage: `[--limit N] ${FILTER_USAGE}`,
      run: guarded(async (ctx, home) => {
        const { values } = parse(ctx.args, FILTER_OPTIONS);
        const core = await import("@rukh/core");
        const filter = runFilter(values, core);
        const runs = await core.listRuns(home.root, filter);
        print(ctx, runs.map(runLine).join("\n") || "no invocations", {
          runs,
        });
        return OK;
      }),
    },
    {
      path: ["runs", "show"],
      summary: "Show one invocation from the journal",
      usage: "<invocation id>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const { findRun } = await import("@rukh/core");
        const run = await findRun(home.root, positionals[0]!);
        if (run === undefined)
          throw new UsageError(`no invocation ${JSON.stringify(positionals[0])} in the journal`);
        print(ctx, runDetails(run), { run });
        return OK;
      }),
    },
    {
      path: ["runs", "tail"],
      summary:
        "Show the newest invocations oldest first; with --follow, keep printing each one as it starts and ends",
      usage: `[--follow | -f] [--limit N] ${FILTER_USAGE}`,
      run: guarded(async (ctx, home) => {
        const { values } = parse(ctx.args, {
          ...FILTER_OPTIONS,
          follow: { type: "boolean", short: "f" },
        });
        const core = await import("@rukh/core");
        const filter = runFilter(values, core);
        const history = async () => {
          const runs = (
            await core.listRuns(home.root, { ...filter, limit: filter.limit ?? 10 })
          ).reverse();
          for (const run of runs)
            ctx.stdout.write(
              ctx.json ? envelope(ctx, { result: { event: "listed", run } }) : `${runLine(run)}\n`,
            );
          return new Set(runs.filter((r) => r.outcome !== undefined).map((r) => r.invocationId));
        };
        if (values.follow !== true) {
          await history();
          return OK;
        }
        let ready!: () => void;
        const marked = new Promise<void>((res) => {
          ready = res;
        });
        const events = core.followRuns(home.root, {
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
          ctx.stdout.write(ctx.json ? envelope(ctx, { result: e.value }) : `${runLine(run)}\n`);
        }
        return OK;
      }),
    },
  ];
}
