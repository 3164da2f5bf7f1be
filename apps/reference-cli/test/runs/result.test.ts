import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { afterAll, describe, expect, it } from "vitest";
import { sleeperState } from "../_sleeper.js";

// `rukh runs show <id> --result`: a call's validated result read again, as
// the call printed it, for as long as the owner's limits keep it.
const FAKETIME = "/usr/bin/faketime";
const works: string[] = [];
afterAll(() => {
  for (const w of works) removeDir(w);
});

async function sleeper(prefix: string, config: object = {}) {
  const made = await sleeperState({ prefix, defaultMs: 1, maxConcurrency: 4, config });
  works.push(made.work);
  const rukh = (args: string[], via: string[] = []) =>
    runCli({ args, stateDir: made.root, ...(via.length > 0 && { via }) });
  /** Runs nap and gives its invocation id (the newest run). */
  const nap = (...args: string[]) => {
    const r = rukh(["nap", ...args]);
    const id = JSON.parse(rukh(["--json", "runs", "list", "--limit", "1"]).stdout).result.runs[0]
      .invocationId as string;
    return { r, id };
  };
  return { ...made, rukh, nap };
}

describe("rukh runs show --result", () => {
  it("prints the result a call printed, and under --json the run beside it; the file is the owner's alone", async () => {
    const { rukh, nap, root } = await sleeper("rukh-cli-result-");
    const { r, id } = nap();
    expect(r.status).toBe(0);
    const again = rukh(["runs", "show", id, "--result"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe(r.stdout);
    expect(again.stdout).toBe("slept");
    const json = JSON.parse(rukh(["--json", "runs", "show", id, "--result"]).stdout);
    expect(json).toMatchObject({
      rukhOutput: 2,
      command: "runs show",
      result: {
        run: { invocationId: id, command: "fx.sleep/nap", outcome: "succeeded" },
        result: { kind: "text", text: "slept" },
      },
    });
    const file = join(root, "journal", "results", `${id}.json`);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(statSync(join(root, "journal", "results")).mode & 0o077).toBe(0);
  });

  it("says why there is none, with a line that shows the run: a refused call, a result too large, an unknown id", async () => {
    const { rukh, nap } = await sleeper("rukh-cli-result-none-", {
      journal: { results: { maxResultBytes: 10 } },
    });
    const refused = nap("--wait-ms", "-5");
    expect(refused.r.status).not.toBe(0);
    const none = rukh(["runs", "show", refused.id, "--result"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(
      `${refused.id} ended rejected/invalid_input: it had no result to keep`,
    );
    expect(none.stderr).toContain(`runs show ${refused.id}`);
    const big = nap();
    expect(big.r.status).toBe(0);
    const large = rukh(["runs", "show", big.id, "--result"]);
    expect(large.status).toBe(2);
    expect(large.stderr).toMatch(
      new RegExp(
        `the result of ${big.id} was not kept: it was \\d+ bytes, above journal\\.results\\.maxResultBytes \\(10\\)`,
      ),
    );
    const unknown = rukh(["runs", "show", "00000000-0000-4000-8000-000000000000", "--result"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("no invocation");
  });

  it("refuses a journal.results limit that is not a count, naming it", async () => {
    const { rukh, work } = await sleeper("rukh-cli-result-config-");
    const config = JSON.parse(rukh(["--json", "profile", "show"]).stdout).result.config;
    const file = join(work, "bad.json");
    writeFileSync(
      file,
      JSON.stringify({ ...config, journal: { results: { maxResultBytes: -1, maxAgeDays: 0 } } }),
    );
    const r = rukh(["profile", "set-config", file]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("/journal/results/maxResultBytes");
    expect(r.stderr).toContain("expected a non-negative integer");
    expect(r.stderr).toContain("/journal/results/maxAgeDays");
  });

  it.skipIf(!existsSync(FAKETIME))(
    "has none once it is older than journal.results.maxAgeDays by the journal's time",
    async () => {
      const { rukh, nap, root } = await sleeper("rukh-cli-result-age-", {
        journal: { results: { maxAgeDays: 1 } },
      });
      // A call two days ago, on that day's clock.
      const r = rukh(["nap"], [FAKETIME, "-f", "-2d"]);
      expect(r.status).toBe(0);
      const old = JSON.parse(rukh(["--json", "runs", "list", "--limit", "5"]).stdout).result.runs[0]
        .invocationId as string;
      expect(existsSync(join(root, "journal", "results", `${old}.json`))).toBe(true);
      // Calls of today: the journal's time, which this clock agrees with.
      const today = nap();
      nap();
      const gone = rukh(["runs", "show", old, "--result"]);
      expect(gone.status).toBe(2);
      expect(gone.stderr).toContain(`no result of ${old} is kept`);
      expect(readdirSync(join(root, "journal", "results"))).not.toContain(`${old}.json`);
      expect(rukh(["runs", "show", today.id, "--result"]).stdout).toBe("slept");
    },
  );
});
