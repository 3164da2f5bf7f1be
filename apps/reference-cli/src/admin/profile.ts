// `profile`: the published revisions — show, history, rollback, and a whole
// owner configuration from a file.

import type { CliBuiltin } from "@rukh/cli";
import { CONFIG_MAX_BYTES } from "@rukh/profile";
import { current, reported } from "./_current.js";
import { type AdminBody, OK, parse, plural, print, readBounded, UsageError } from "./_kit.js";

/** The `profile` commands. */
export function profileBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["profile", "show"],
      summary: "Show the active profile revision and its owner configuration",
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const { base, revision } = await current(home, brand);
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
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const active = await home.activeRevisionId();
        const history = await home.history();
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
      summary: "Publish an earlier revision's state as a new revision",
      usage: "<revision id or unique prefix>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const matches = (await home.history()).filter(({ id }) => id.startsWith(positionals[0]!));
        if (matches.length !== 1)
          throw new UsageError(
            `${matches.length} revisions match ${JSON.stringify(positionals[0])}; expected exactly one`,
          );
        const from = await current(home, brand);
        const p = await home.rollback(matches[0]!.id, { base: from.base });
        return reported(ctx, p, `rolled back to ${matches[0]!.id.slice(0, 12)}`);
      }),
    },
    {
      path: ["profile", "set-config"],
      summary: "Publish an owner configuration file (strict JSON)",
      usage: "<owner configuration file>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const bytes = readBounded(positionals[0]!, CONFIG_MAX_BYTES);
        const from = await current(home, brand);
        const p = await home.setConfig(bytes, { base: from.base });
        return reported(ctx, p, "published the configuration");
      }),
    },
    {
      path: ["profile", "gc"],
      summary:
        "Remove old revisions (keeping the active one, the newest --keep of its history and any younger than --max-age-days) and stored packages none of the kept ones uses",
      usage: "[--keep N (20)] [--max-age-days D (30)] [--dry-run]",
      run: guarded(async (ctx, home) => {
        const { values } = parse(ctx.args, {
          keep: { type: "string" },
          "max-age-days": { type: "string" },
          "dry-run": { type: "boolean" },
        });
        const count = (flag: string, fallback: number) => {
          const v = values[flag];
          if (v === undefined) return fallback;
          if (typeof v !== "string" || !/^[1-9][0-9]{0,5}$/.test(v))
            throw new UsageError(
              `--${flag} ${JSON.stringify(v)}: expected a whole number from 1 to 999999`,
            );
          return Number(v);
        };
        const r = await home.collectGarbage({
          keep: count("keep", 20),
          maxAgeDays: count("max-age-days", 30),
          dryRun: values["dry-run"] === true,
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
