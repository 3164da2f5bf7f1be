import type { ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnCli } from "@rukh/testkit/cli";
import { describe, expect, it } from "vitest";
import { useSleeperCli } from "../_sleeper.js";

const { at, env, rukh } = useSleeperCli("rukh-cli-runs-");

/** Lines of a child's stdout as they come, until `enough` says so. */
function collect(child: ChildProcess, enough: (lines: string[]) => boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let buf = "";
    const timer = setTimeout(
      () => reject(new Error(`only these lines came:\n${lines.join("\n")}`)),
      30_000,
    );
    child.stdout!.on("data", (c: Buffer) => {
      buf += c.toString("utf8");
      const parts = buf.split("\n");
      buf = parts.pop()!;
      lines.push(...parts);
      if (enough(lines)) {
        clearTimeout(timer);
        resolve(lines);
      }
    });
  });
}

describe("rukh runs", () => {
  it("tail prints the newest runs oldest first; --follow prints each call as it starts and ends", async () => {
    for (const ms of ["1", "2", "3"]) expect(rukh("nap", "--wait-ms", ms).status).toBe(0);
    const tail = rukh("runs", "tail", "--limit", "2");
    const listed = tail.stdout.trim().split("\n");
    expect(listed).toHaveLength(2);
    const [older, newer] = listed.map((l) => l.split("  ")[1]!);
    expect(older! <= newer!).toBe(true);

    const follow = spawnCli(
      { args: ["--json", "runs", "tail", "-f", "--limit", "1"], env: env() },
      ["ignore", "pipe", "pipe"],
    );
    const events = collect(follow, (l) => l.filter((x) => x.includes('"ended"')).length >= 2);
    // The listed history comes first, then the follower is in place.
    await collect(follow, (l) => l.some((x) => x.includes('"listed"')));
    expect(rukh("nap", "--wait-ms", "400").status).toBe(0);
    expect(rukh("nap", "--wait-ms", "1").status).toBe(0);
    const got = (await events).map(
      (l) =>
        JSON.parse(l) as {
          rukhOutput: number;
          command: string;
          result: { event: string; run: Record<string, unknown> };
        },
    );
    follow.kill("SIGINT");
    const code = await new Promise((r) => follow.once("exit", r));
    expect(code).toBe(0);
    expect(got.every((e) => e.rukhOutput === 2 && e.command === "runs tail")).toBe(true);
    const kinds = got.map(
      ({ result: e }) => `${e.event}:${e.run.outcome ?? ""}/${e.run.reason ?? ""}`,
    );
    expect(kinds[0]).toBe("listed:succeeded/completed");
    expect(kinds).toContain("started:/");
    expect(kinds).toContain("ended:succeeded/completed");
    expect(kinds.filter((k) => k === "ended:succeeded/completed")).toHaveLength(2);
    const ended = got.find(
      ({ result: e }) => e.event === "ended" && e.run.outcome === "succeeded",
    )!.result;
    expect(ended.run.durationMs as number).toBeGreaterThanOrEqual(400);
    expect(ended.run.command).toBe("fx.sleep/nap");
  }, 60_000);

  it("records the inputs as a digest only, unless the owner turns recording on", () => {
    const canonical = '{"wait_ms":7}';
    const digest = `sha256:${createHash("sha256").update(canonical).digest("hex")}`;
    expect(rukh("nap", "--wait-ms", "7").status).toBe(0);
    const [first] = JSON.parse(rukh("--json", "runs", "list", "--limit", "1").stdout).result.runs;
    expect(first.inputsDigest).toBe(digest);
    expect(first).not.toHaveProperty("inputs");

    const config = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
    const file = join(at.work, "recording.json");
    writeFileSync(file, JSON.stringify({ ...config, journal: { recordInputs: true } }));
    expect(rukh("profile", "set-config", file).status).toBe(0);
    expect(rukh("nap", "--wait-ms", "7").status).toBe(0);
    const shown = rukh("runs", "show", rukh("runs", "list", "--limit", "1").stdout.slice(0, 36));
    expect(shown.stdout).toContain('inputs: {"wait_ms":7}');
    expect(shown.stdout).toContain(`inputsDigest: ${digest}`);

    writeFileSync(file, JSON.stringify({ ...config, journal: { recordInputs: "yes" } }));
    const refused = rukh("profile", "set-config", file);
    expect(refused.status).toBe(4);
    expect(refused.stderr).toContain("/journal/recordInputs: expected true or false");
  });
});
