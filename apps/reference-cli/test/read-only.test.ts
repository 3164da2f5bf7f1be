import { type ChildProcess, spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { readJournal } from "@rukh/core";
import { freePort, removeDir, tempDir } from "@rukh/testkit";
import { runCli, spawnCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  filesUnder,
  listing,
  NOBODY,
  type ReadOnlyView,
  readOnlyCopy,
  readOnlyMount,
} from "./_read-only.js";
import { sleeperState } from "./_sleeper.js";

// A replica served from a read-only copy of a state directory (a shipped,
// immutable revision): it lists and serves, its journal, log, caches and
// (unless shipped) cursor key go to the owner's journal directory, nothing
// is created in the copy, and without a journal directory it refuses with
// the fix. Once as root on a read-only bind mount, once as uid 65534 on a
// root-owned copy of mode 0555/0444.

const work = tempDir("rukh-cli-read-only-");
chmodSync(work, 0o755);
afterAll(() => removeDir(work));

const PATH = process.env.PATH ?? "/usr/bin:/bin";

/** Makes a read-only view of `source` for a mode, or says why it cannot here. */
type Make = (source: string, name: string) => ReadOnlyView | string;
const MODES: readonly { name: string; make: Make; owner: number; shipKey: boolean }[] = [
  {
    name: "a read-only bind mount, as root",
    make: (source, name) => readOnlyMount(source, join(work, name)),
    owner: 0,
    shipKey: false,
  },
  {
    name: `a root-owned copy of mode 0555/0444, as uid ${NOBODY}`,
    make: (source, name) => readOnlyCopy(source, join(work, name)),
    owner: NOBODY,
    shipKey: true,
  },
];

/** Whether a mode can be made here: tried on an empty directory, undone at once. */
function whyNot(make: Make, name: string): string | undefined {
  const scratch = join(work, `${name}-probe-source`);
  mkdirSync(scratch);
  const view = make(scratch, `${name}-probe`);
  if (typeof view === "string") return view;
  view.release();
  return undefined;
}

/** A sleeper state whose owner configuration names `journalDir` (if any) and an HTTP endpoint. */
async function replicaSource(journalDir: string | undefined, port: number) {
  return sleeperState({
    prefix: "rukh-cli-read-only-state-",
    defaultMs: 5,
    maxConcurrency: 4,
    config: {
      ...(journalDir !== undefined && { journal: { dir: journalDir } }),
      mcp: {
        endpoints: {
          team: {
            preset: "default",
            http: {
              resource: `http://127.0.0.1:${port}/mcp`,
              // Keys are fetched when a token first needs them: none is sent here.
              auth: { issuer: "http://127.0.0.1:9" },
            },
          },
        },
      },
    },
  });
}

/** Runs the CLI through `view` with `env`. */
function cli(view: ReadOnlyView, env: Record<string, string>, ...args: string[]) {
  const { command, args: argv } = view.command(args);
  return runCli({ bin: command, args: argv, env, stdin: "ignore" });
}

describe.each(MODES)("a replica on $name", ({ name, make, owner, shipKey }) => {
  const key = name.includes("mount") ? "mount" : "copy";
  const skip = whyNot(make, key);
  if (skip !== undefined) console.log(`skipped (${name}): ${skip}`);
  const at = { view: undefined as unknown as ReadOnlyView, before: [] as string[], work: "" };
  const journalDir = join(work, `${key}-journal`);
  let port = 0;
  const env = () => ({ PATH, RUKH_HOME: at.view.home, HOME: join(work, `${key}-user`) });

  beforeAll(async () => {
    if (skip !== undefined) return;
    port = await freePort();
    const made = await replicaSource(journalDir, port);
    at.work = made.work;
    // A copy made where a tool list created the cursor key ships it; replicas then agree on cursors.
    if (shipKey) expect(runCli({ args: ["tools", "list"], stateDir: made.root }).status).toBe(0);
    if (owner !== 0) {
      // The replica's own directory, which it can write: the only place it writes.
      mkdirSync(journalDir, { mode: 0o700 });
      chownSync(journalDir, owner, owner);
    }
    const view = make(made.root, key);
    if (typeof view === "string") throw new Error(view);
    at.view = view;
    at.before = listing(view.home);
  });
  afterAll(() => {
    at.view?.release();
    if (at.work) removeDir(at.work);
  });

  it.skipIf(skip !== undefined)(
    "answers the read-only commands: tools list, docs, --help, runs list, doctor",
    () => {
      const tools = cli(at.view, env(), "--json", "tools", "list");
      expect(tools.stderr).toBe("");
      expect(tools.status).toBe(0);
      expect(
        JSON.parse(tools.stdout).result.tools.map((t: { identity: string }) => t.identity),
      ).toEqual(["fx.sleep/nap"]);
      expect(cli(at.view, env(), "docs").status).toBe(0);
      expect(cli(at.view, env(), "--help").status).toBe(0);
      expect(cli(at.view, env(), "nap", "--help").status).toBe(0);
      expect(cli(at.view, env(), "runs", "list").status).toBe(0);
      const doctor = cli(at.view, env(), "doctor");
      expect(doctor.stdout).toContain(
        `state directory: ${at.view.home} is read-only; the journal, diagnostics log and caches are in ${journalDir}`,
      );
      expect(doctor.stdout).toContain(`ok    journal directory: ${journalDir} (/journal/dir)`);
      expect(doctor.status, doctor.stdout).toBe(0);
      const repair = cli(at.view, env(), "doctor", "--repair");
      expect(repair.stdout).toContain(
        `fixed  state directory: ${at.view.home} is read-only (${owner === 0 ? "on a read-only file system" : "this user may not write it"}); nothing in it was repaired`,
      );
      expect(repair.status, repair.stdout).toBe(0);
    },
  );

  it.skipIf(skip !== undefined)(
    "serves a list and a call over stdio to a real client, says so at start, and journals the call in the journal directory",
    async () => {
      const { command, args } = at.view.command(["mcp", "serve", "--preset", "default"]);
      const transport = new StdioClientTransport({ command, args, env: env(), stderr: "pipe" });
      let stderr = "";
      transport.stderr?.on("data", (d: Buffer) => {
        stderr += d.toString("utf8");
      });
      const client = new Client(
        { name: "replica-test", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(transport);
      let invocationId: string;
      try {
        const { tools } = await client.listTools();
        const nap = tools.find((t) => t.name.includes("nap"));
        expect(nap).toBeDefined();
        const r = await client.callTool({ name: nap!.name, arguments: { wait_ms: 5 } });
        expect(r.structuredContent).toMatchObject({ outcome: "succeeded" });
        invocationId = (r.structuredContent as { invocationId: string }).invocationId;
      } finally {
        await client.close();
      }
      const keyAt = shipKey
        ? `the cursor key ${at.view.home}/keys/cursor.key (shipped with it)`
        : `the cursor key ${journalDir}/keys/cursor.key (not shipped with it: cursors differ between replicas)`;
      const line = stderr.split("\n").find((l) => l.includes("is read-only"));
      expect(line).toBe(
        `rukh mcp: the state directory ${at.view.home} is read-only; the journal, diagnostics log and caches are in ${journalDir} (/journal/dir), ${keyAt}`,
      );
      // The call's records are in the journal directory, and runs list finds them there.
      const { records } = await readJournal(journalDir);
      expect(records.filter((r) => r.invocationId === invocationId).map((r) => r.type)).toEqual(
        expect.arrayContaining(["start", "final"]),
      );
      expect(filesUnder(journalDir).some((f) => f.startsWith("journal/"))).toBe(true);
      const runs = cli(at.view, env(), "--json", "runs", "list");
      expect(runs.status).toBe(0);
      expect(
        JSON.parse(runs.stdout).result.runs.map((r: { invocationId: string }) => r.invocationId),
      ).toContain(invocationId);
      const shown = cli(at.view, env(), "runs", "show", invocationId);
      expect(shown.stdout).toContain("outcome: succeeded");
    },
  );

  it.skipIf(skip !== undefined)("says the same at the start of mcp serve --http", async () => {
    const { command, args } = at.view.command([
      "mcp",
      "serve",
      "--endpoint",
      "team",
      "--http",
      `127.0.0.1:${port}`,
    ]);
    const child: ChildProcess = spawnCli({ bin: command, args, env: env() }, [
      "ignore",
      "ignore",
      "pipe",
    ]);
    let err = "";
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString("utf8");
    });
    const exited = new Promise((r) => child.once("exit", r));
    try {
      for (let i = 0; i < 400 && !err.includes(" over HTTP at "); i++) {
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(err).toContain(" over HTTP at ");
      expect(err).toContain(
        `rukh mcp: the state directory ${at.view.home} is read-only; the journal, diagnostics log and caches are in ${journalDir} (/journal/dir)`,
      );
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });

  it.skipIf(skip !== undefined)(
    "refuses every change with a clear read_only error, not a raw file-system one",
    () => {
      const pkg = readdirSync(at.work).find((n) => n !== "home");
      for (const args of [
        ["ext", "install", join(at.work, pkg!)],
        ["preset", "allow", "default", "fx.sleep/*"],
        ["expose", "remove", "fx.sleep"],
        ["profile", "gc"],
      ]) {
        const r = cli(at.view, env(), ...args);
        expect(r.stderr, args.join(" ")).toContain(
          `rukh: read_only: the state directory ${at.view.home} cannot be written`,
        );
        expect(r.stderr).not.toMatch(/EROFS|EACCES|EPERM/);
        expect(r.status, args.join(" ")).toBe(4);
      }
    },
  );

  it.skipIf(skip !== undefined)("left nothing in the read-only state directory", () => {
    expect(listing(at.view.home)).toEqual(at.before);
  });
});

const refusalSkip = whyNot(MODES[0]!.make, "refusal");
if (refusalSkip !== undefined) console.log(`skipped (refusal): ${refusalSkip}`);

describe.skipIf(refusalSkip !== undefined)("a replica without a journal directory", () => {
  const at = { view: undefined as unknown as ReadOnlyView, work: "", port: 0 };
  const home = join(work, "refusal-user");
  beforeAll(async () => {
    at.port = await freePort();
    const made = await replicaSource(undefined, at.port);
    at.work = made.work;
    const view = readOnlyMount(made.root, join(work, "refusal"));
    if (typeof view === "string") throw new Error(view);
    at.view = view;
  });
  afterAll(() => {
    at.view?.release();
    if (at.work) removeDir(at.work);
  });

  it("refuses to serve, naming /journal/dir and a runnable line, and that line serves", () => {
    const env = { PATH, RUKH_HOME: at.view.home, HOME: home };
    const before = listing(at.view.home);
    const r = cli(at.view, env, "mcp", "serve", "--preset", "default");
    expect(r.status).toBe(5);
    expect(r.stderr).toContain(`the state directory ${at.view.home} is read-only`);
    expect(r.stderr).toContain("/journal/dir");
    const fix = r.stderr
      .split("\n")
      .find((l) => l.startsWith("  $ "))
      ?.slice(4);
    expect(fix).toBe(
      `RUKH_JOURNAL_DIR=${home}/.local/state/rukh-journal rukh --home ${at.view.home} mcp serve --preset default`,
    );
    // The line as given, run by a shell: the server starts, sees its input end and exits 0.
    const ran = spawnSync("sh", ["-c", fix!], {
      encoding: "utf8",
      env: { ...env, PATH: `${join(import.meta.dirname, "..", "bin")}:${PATH}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(ran.stderr).toContain(
      `the journal, diagnostics log and caches are in ${home}/.local/state/rukh-journal (RUKH_JOURNAL_DIR)`,
    );
    expect(ran.status, ran.stderr).toBe(0);
    expect(listing(at.view.home)).toEqual(before);
  });

  it("still answers what only reads, and doctor names what is missing", () => {
    const env = { PATH, RUKH_HOME: at.view.home, HOME: home };
    const before = listing(at.view.home);
    for (const args of [["tools", "list"], ["runs", "list"], ["docs"], ["--help"]]) {
      const r = cli(at.view, env, ...args);
      expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
    const doctor = cli(at.view, env, "doctor");
    expect(doctor.stdout).toContain(
      `FAIL  state directory: the state directory ${at.view.home} is read-only (on a read-only file system)`,
    );
    expect(doctor.status).toBe(5);
    expect(listing(at.view.home)).toEqual(before);
  });

  it("refuses to serve over HTTP too", () => {
    const r = cli(
      at.view,
      { PATH, RUKH_HOME: at.view.home, HOME: home },
      "mcp",
      "serve",
      "--endpoint",
      "team",
      "--http",
      `127.0.0.1:${at.port}`,
    );
    expect(r.stderr).toContain(`the state directory ${at.view.home} is read-only`);
    expect(r.stderr).toContain(
      `  $ RUKH_JOURNAL_DIR=${home}/.local/state/rukh-journal rukh --home ${at.view.home} mcp serve --endpoint team --http 127.0.0.1:${at.port}`,
    );
    expect(r.status).toBe(5);
  });

  it("refuses to run a command, naming /journal/dir", () => {
    const r = cli(at.view, { PATH, RUKH_HOME: at.view.home, HOME: home }, "nap");
    expect(r.stderr).toContain(`the state directory ${at.view.home} is read-only`);
    expect(r.stderr).toContain("/journal/dir");
    expect(r.status).toBe(5);
  });
});
