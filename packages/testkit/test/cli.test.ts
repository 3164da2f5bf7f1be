import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv, RUKH_BIN, runCli, spawnCli, startCli } from "../src/cli.js";
import { removeDir, tempDir } from "../src/index.js";

// The runner every CLI suite calls: what it starts is exactly what the call
// names, in an environment of PATH and the state directory and nothing else.

const work = tempDir("rukh-testkit-cli-");
afterAll(() => removeDir(work));
/** A binary that prints its arguments, environment, stdin and working directory as JSON, and exits 3. */
const ECHO = join(work, "echo.mjs");
writeFileSync(
  ECHO,
  `import { readFileSync } from "node:fs";
let input = ""; try { input = readFileSync(0, "utf8"); } catch {}
process.stdout.write(JSON.stringify({ args: process.argv.slice(2), env: process.env, input, cwd: process.cwd() }));
process.stderr.write("err");
process.exit(3);
`,
);
const via = [process.execPath];

describe("runCli", () => {
  it("runs the binary through `via` with the args, PATH and the state directory only", () => {
    const r = runCli({ via, bin: ECHO, args: ["a b", "--c"], stateDir: "/s", cwd: work });
    expect([r.status, r.stderr]).toEqual([3, "err"]);
    const seen = JSON.parse(r.stdout);
    expect(seen.args).toEqual(["a b", "--c"]);
    expect(seen.env).toEqual({ PATH: process.env.PATH, RUKH_HOME: "/s" });
    expect(seen.cwd).toBe(work);
    expect(seen.input).toBe("");
  });

  it("names the state directory by another variable, adds and drops variables, writes stdin", () => {
    const r = runCli({
      via,
      bin: ECHO,
      args: [],
      stateDir: "/s",
      stateVariable: "ACME_HOME",
      env: { NO_COLOR: "1", PATH: undefined },
      input: "hello",
    });
    const seen = JSON.parse(r.stdout);
    expect(seen.env).toEqual({ ACME_HOME: "/s", NO_COLOR: "1" });
    expect(seen.input).toBe("hello");
  });

  it("kills a call past its timeout with the signal asked for", () => {
    const r = runCli({
      bin: process.execPath,
      args: ["-e", "setTimeout(() => {}, 60_000)"],
      timeout: 200,
      killSignal: "SIGKILL",
    });
    expect(r.signal).toBe("SIGKILL");
  });

  it("runs the reference CLI's launcher by default", () => {
    // The launcher is in the checkout; its build may not be yet (this suite
    // does not wait for the reference CLI's), so what runs it is a stand-in
    // that prints the arguments it was given.
    expect(existsSync(RUKH_BIN)).toBe(true);
    expect(RUKH_BIN.endsWith(join("apps", "reference-cli", "bin", "rukh"))).toBe(true);
    const show = [
      process.execPath,
      "-e",
      "process.stdout.write(JSON.stringify(process.argv.slice(1)))",
    ];
    const r = runCli({ via: show, args: ["--version"], stateDir: join(work, "home") });
    expect(JSON.parse(r.stdout)).toEqual([RUKH_BIN, "--version"]);
  });
});

describe("startCli and spawnCli", () => {
  it("collects what the process writes and how it ended", async () => {
    const r = await startCli({ via, bin: ECHO, args: ["x"], stateDir: "/s" });
    expect([r.status, r.signal, r.stderr]).toEqual([3, null, "err"]);
    expect(JSON.parse(r.stdout).args).toEqual(["x"]);
  });

  it("starts the process with the call's environment and the stdio asked for", async () => {
    const child = spawnCli({ via, bin: ECHO, args: [] }, "ignore");
    expect(child.stdout).toBeNull();
    expect(await new Promise((r) => child.once("exit", r))).toBe(3);
    expect(cliEnv({ args: [], stateDir: "/s", env: { X: "1" } })).toEqual({
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      RUKH_HOME: "/s",
      X: "1",
    });
  });
});
