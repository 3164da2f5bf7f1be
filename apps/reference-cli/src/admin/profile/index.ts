// `profile`: the published revisions — show, history, rollback, and a whole
// owner configuration from a file. Its steps: show, history, rollback,
// set-config (the owner's file read bounded) and gc of what no kept
// revision needs. It imports the kit room.

import type { CliBuiltin } from "@rukh/cli";
import {
  type AdminBody,
  arg,
  bool,
  count,
  current,
  OK,
  plural,
  print,
  readOwnerFile,
  reported,
  text,
  UsageError,
} from "../kit/index.js";

/** The `profile` commands. */
export function profileBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["profile", "show"],
      summary: "Show the active profile revision and its owner configuration",
      inputs: [],
      run: guarded(async (ctx, state) => {
        const { base, revision } = await current(state, brand);
        if (base === null || revision === undefined) {
          print(ctx, "no profile published yet", { id: null });
          return OK;
        }
        print(
          ctx,
          `revision ${base}\nsequence ${revision.sequence}, command generation ${revision.commandGeneration}, created ${revision.createdAt}\n${JSON.stringify(revision.config, null, 2)}`,
          { id: base, ...revision },
        );
        return OK;
      }),
    },
    {
      path: ["profile", "history"],
      summary: "List published profile revisions, newest first",
      inputs: [],
      run: guarded(async (ctx, state) => {
        const active = await state.activeRevisionId();
        const history = await state.history();
        const lines = history.map(
          ({ id, revision }) =>
            `${id === active ? "*" : " "} ${id.slice(0, 12)}  #${revision.sequence}  ${revision.createdAt}  ${plural(revision.extensions.length, "extension")}`,
        );
        print(
          ctx,
          lines.join("\n") || "no revisions",
          history.map(({ id, revision }) => ({
            id,
            sequence: revision.sequence,
            createdAt: revision.createdAt,
          })),
        );
        return OK;
      }),
    },
    {
      path: ["profile", "rollback"],
      changesState: true,
      summary: "Publish an earlier revision's state as a new revision",
      inputs: [arg("revision", "A revision id or a unique prefix of one", 0, { maxLength: 64 })],
      run: guarded(async (ctx, state) => {
        const prefix = text(ctx.inputs, "revision")!;
        const matches = (await state.history()).filter(({ id }) => id.startsWith(prefix));
        if (matches.length !== 1)
          throw new UsageError(
            `${matches.length} revisions match ${JSON.stringify(prefix)}; expected exactly one`,
            { see: ["profile", "history"] },
          );
        const from = await current(state, brand);
        const p = await state.rollback(matches[0]!.id, { base: from.base });
        return reported(ctx, p, `rolled back to ${matches[0]!.id.slice(0, 12)}`);
      }),
    },
    {
      path: ["profile", "set-config"],
      changesState: true,
      summary: "Publish an owner configuration file (strict JSON)",
      inputs: [arg("file", "The owner configuration file (strict JSON)")],
      run: guarded(async (ctx, state, { CONFIG_MAX_BYTES }) => {
        const bytes = readOwnerFile(
          text(ctx.inputs, "file")!,
          CONFIG_MAX_BYTES,
          "an owner configuration (strict JSON)",
        );
        const from = await current(state, brand);
        const p = await state.setConfig(bytes, { base: from.base });
        return reported(ctx, p, "published the configuration");
      }),
    },
    {
      path: ["profile", "gc"],

      summary:
        "Remove old revisions (keeping the active one, the newest --keep of its history and any younger than --max-age-days) and stored packages none of the kept ones uses",
      inputs: [
        count("keep", "The newest revisions of the active history always kept", {
          minimum: 1,
          maximum: 999_999,
          default: 20,
        }),
        count("max_age_days", "Revisions younger than this many days are kept too", {
          minimum: 1,
          maximum: 36_500,
          default: 30,
        }),
        bool("dry_run", "Only report what would be removed"),
      ],
      run: guarded(async (ctx, state) => {
        const r = await state.collectGarbage({
          keep: Number(ctx.inputs.keep),
          maxAgeDays: Number(ctx.inputs.max_age_days),
          dryRun: ctx.inputs.dry_run === true,
        });
        const verb = r.dryRun ? "would remove" : "removed";
        const kib = Math.ceil(r.bytes / 1024);
        print(
          ctx,
          `${verb} ${plural(r.revisions.length, "revision")} and ${plural(r.packages.length, "stored package")} (${kib} KiB); kept ${plural(r.keptRevisions, "revision")}`,
          r,
        );
        return OK;
      }),
    },
  ];
}
