import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CANCEL_GRACE_MS, TERMINATE_GRACE_MS } from "@rukh/core";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/index.js";
import { acme, BIN, makeHome, runnableLines, tempDir } from "../_helpers.js";

let home: string;
beforeAll(async () => {
  home = await makeHome();
}, 60_000);

/** Records of `type` in every journal segment, live and archived (read raw: a live one may be mid-write). */
function records(root: string, type: "start" | "process"): number {
  const dirs = ["live", "archive"].map((d) => join(root, "journal", d));
  let n = 0;
  for (const dir of dirs)
    for (const name of existsSync(dir) ? readdirSync(dir) : [])
      n += readFileSync(join(dir, name), "utf8")
        .split("\n")
        .filter((l) => l.includes(`"type":"${type}"`)).length;
  return n;
}

/**
 * Resolves once the core has journaled the process of an invocation (the
 * command is spawned: on a loaded machine that can take seconds), then
 * gives the child time to reach its handler: a command cancelled before it
 * gets there ends at once.
 */
async function started(root: string, count = 1): Promise<void> {
  while (records(root, "process") < count) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 500));
}

describe("exit codes of the built binary", () => {
  it.each([
    ["success", ["hello", "x"], {}, EXIT_CODES.success],
    ["command_failed", ["fail"], {}, EXIT_CODES.commandFailed],
    ["unknown command", ["nope"], {}, EXIT_CODES.usage],
    [
      "invalid input (core validation)",
      ["files", "count", "a", "--format", "short", ...Array(16).fill("p")],
      {},
      EXIT_CODES.usage,
    ],
    ["execution_failed", ["crash"], {}, EXIT_CODES.executionFailed],
    ["preset_denied", ["greedy"], {}, EXIT_CODES.rejected],
    ["deadline", ["slow", "--wait-ms", "60000"], { ACME_PRESET: "short" }, EXIT_CODES.deadline],
    ["passthrough status", ["kit", "pt", "--exit=7"], {}, 7],
  ])(
    "%s",
    async (_name, args, env, code) => {
      const r = await acme(home, args as string[], env as Record<string, string>);
      expect({ code: r.status, stderr: r.stderr }).toMatchObject({ code });
    },
    20_000,
  );

  it("passes every word after a passthrough route to the program unchanged", async () => {
    const args = ["--help", "-x", "--json", "0x10", "--", "--exit=0", "a b"];
    const r = await acme(home, ["kit", "pt", ...args]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(args);
  });
});

describe("signals", () => {
  it.each([
    ["SIGINT", EXIT_CODES.interrupted],
    ["SIGTERM", EXIT_CODES.terminated],
  ] as const)(
    "a first %s cancels gracefully (exit %i after the outcome)",
    async (signal, code) => {
      const root = await makeHome();
      const run = acme(root, ["--json", "slow", "--wait-ms", "60000"]);
      await started(root);
      run.child.kill(signal);
      const r = await run;
      expect(r.status).toBe(code);
      expect(JSON.parse(r.stdout).outcome).toMatchObject({
        outcome: "cancelled",
        reason: "owner_cancel",
      });
      expect(r.stderr).toContain("cancelling");
    },
    30_000,
  );

  it("a second SIGINT exits 130 at once, without waiting for the command", async () => {
    const root = await makeHome();
    const run = acme(root, ["stubborn"]);
    await started(root);
    const first = Date.now();
    run.child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 100));
    run.child.kill("SIGINT");
    const r = await run;
    expect(r.status).toBe(EXIT_CODES.interrupted);
    // The command ignores SIGTERM: the core's own escalation, counted from the first SIGINT,
    // could end the run no sooner than both graces, so an exit before them did not wait.
    expect(Date.now() - first).toBeLessThan(CANCEL_GRACE_MS + TERMINATE_GRACE_MS);
    expect(r.stderr).toContain("interrupted again");
  }, 30_000);
});

describe("recovery lines", () => {
  it("every runnable line printed by help and errors is accepted by the binary", async () => {
    const outputs = await Promise.all(
      [
        ["--help"],
        ["files", "--help"],
        ["kit", "--help"],
        ["hello", "--help"],
        ["echo", "--help"],
        ["files", "count", "--help"],
        ["kit", "pt", "--help"].slice(0, 1).concat(["--help"]),
        ["help", "kit", "pt"],
        ["slow", "--help"],
        ["doctor", "--help"],
        ["completion", "--help"],
        ["fil"],
        ["files", "cuont"],
        ["tols", "pt"],
        ["echo", "--nope"],
        ["echo", "--limit", "x"],
        ["files", "count"],
        ["hello"],
        ["--bogus"],
        ["completion", "fish"],
        ["zzzzzz"],
      ].map((args) => acme(home, args)),
    );
    const lines = new Map<string, string[]>();
    for (const o of outputs)
      for (const l of runnableLines(o.stdout + o.stderr)) lines.set(l.join(" "), l);
    expect(lines.size).toBeGreaterThan(8);
    // With --json, each error's recovery is the same line.
    const json = await Promise.all(
      [["fil"], ["files", "cuont"], ["echo", "--nope"], ["echo", "--limit", "x"], ["zzzzzz"]].map(
        (args) => acme(home, ["--json", ...args]),
      ),
    );
    for (const o of json) {
      const recovery: string = JSON.parse(o.stdout).error.recovery;
      expect(lines.has(recovery.split(" ").slice(1).join(" ")), recovery).toBe(true);
    }
    const results = await Promise.all(
      [...lines.values()].map(async (l) => [l.join(" "), (await acme(home, l)).status] as const),
    );
    for (const [line, code] of results) expect({ line, code }).toEqual({ line, code: 0 });
  }, 60_000);
});

describe("listing, help and completion read only the cached route table", () => {
  it("work with the package store gone; an invocation then fails as a state error", async () => {
    const root = await makeHome();
    rmSync(join(root, "store"), { recursive: true });
    for (const args of [["--help"], ["files", "count", "--help"], ["__complete", "--", "fi"]]) {
      const r = await acme(root, args);
      expect({ args, code: r.status, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
    }
    expect((await acme(root, ["hello", "x"])).status).toBe(EXIT_CODES.internal);
    expect(records(root, "start")).toBe(0);
  }, 30_000);
});

describe("shell completion", () => {
  let bin: string;
  let script: string;
  beforeAll(async () => {
    const dir = tempDir("rukh-cli-bin-");
    bin = join(dir, "acme");
    writeFileSync(
      bin,
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`,
    );
    chmodSync(bin, 0o755);
    script = join(dir, "acme.bash");
    writeFileSync(script, (await acme(home, ["completion", "bash"])).stdout);
  });

  const bash = (words: string[]) =>
    execFileSync(
      "bash",
      [
        "-c",
        `source ${JSON.stringify(script)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _acme_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      {
        env: { PATH: `${join(bin, "..")}:${process.env.PATH}`, ACME_HOME: home },
        encoding: "utf8",
      },
    )
      .split("\n")
      .filter((l) => l !== "");

  it.each([
    [["acme", "fi"], ["files"]],
    [["acme", "files", ""], ["count"]],
    [["acme", "files", "c"], ["count"]],
    [
      ["acme", "echo", "--l"],
      ["--label", "--limit"],
    ],
    [
      ["acme", "echo", "--mode", ""],
      ["fast", "slow"],
    ],
    [
      ["acme", "completion", ""],
      ["bash", "zsh"],
    ],
    [["acme", "help", "fi"], ["files"]],
    [["acme", "nope", ""], []],
    [["acme", "--j"], ["--json"]],
  ])(
    "bash completes %j to %j",
    (words, expected) => {
      expect(bash(words)).toEqual(expected);
    },
    20_000,
  );

  it("the root level lists groups and commands, never the hidden __complete", () => {
    const all = bash(["acme", ""]);
    expect(all).toEqual(expect.arrayContaining(["files", "kit", "hello", "wc", "doctor", "help"]));
    expect(all).not.toContain("__complete");
  }, 20_000);

  it("prints a zsh script that zsh accepts", async () => {
    const r = await acme(home, ["completion", "zsh"]);
    expect(r.stdout).toContain("compdef _acme_complete acme");
    let hasZsh = true;
    try {
      execFileSync("zsh", ["--version"]);
    } catch {
      hasZsh = false;
    }
    if (hasZsh) execFileSync("zsh", ["-n", "-c", r.stdout]);
  });
});
