import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { nodeTestPasses, registryCaEnv, removeDir } from "@rukh/testkit";
import { afterAll, describe, expect, it } from "vitest";

// A new extension author's whole path, as docs/extension-authors.md walks it
// ("From nothing to a running extension"), in a temporary directory outside
// this repository with a clean environment: the public packages packed by
// plain node, a brand scaffolded from the tarballs, a TypeScript and a Python
// extension written, signed, packed, installed and run through the brand's
// CLI and an SDK 2.x MCP client, a broken result schema, and a third package
// linked for development. Every `acme` command it runs must be one the
// walkthrough shows.

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const WALKTHROUGH = (() => {
  const doc = readFileSync(join(REPO, "docs/extension-authors.md"), "utf8");
  const start = doc.indexOf("## From nothing to a running extension");
  return doc.slice(start, doc.indexOf("\n## ", start + 1));
})();

const PYTHON = "/usr/bin/python3";
const BWRAP = "/usr/bin/bwrap";
// Python programs find python3 on a command's PATH (/usr/bin:/bin); the MCP
// client reaches the agent preset, which runs commands in the strict sandbox.
const missing = [PYTHON, BWRAP].filter((p) => !existsSync(p));
if (missing.length > 0)
  console.warn(`skipping the newcomer's path: ${missing.join(" and ")} not installed`);

const temp = mkdtempSync(join(tmpdir(), "rukh-newcomer-"));
afterAll(() => removeDir(temp));
const tarballs = join(temp, "tarballs");
const acmeDir = join(temp, "acme");
const home = join(temp, "acme-home");
// What a fresh shell has: no workspace, no pnpm, no test runner's variables.
const env: Record<string, string> = {
  PATH: `${join(acmeDir, "bin")}:${dirname(process.execPath)}:/usr/bin:/bin`,
  HOME: process.env.HOME ?? temp,
  ACME_HOME: home,
  ...registryCaEnv(),
};

const timings: [string, number][] = [];
let phaseStart = Date.now();
const phase = (name: string) => {
  const now = Date.now();
  timings.push([name, now - phaseStart]);
  phaseStart = now;
};
afterAll(() => {
  if (timings.length === 0) return;
  const total = timings.reduce((sum, [, ms]) => sum + ms, 0);
  const rows = timings.map(([name, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`);
  console.log(
    `the newcomer's path, end to end: ${(total / 1000).toFixed(1)} s\n${rows.join("\n")}`,
  );
});

/** Runs `command` in the author's directory (or `cwd`), as the shell would. */
function sh(command: string, args: readonly string[], cwd = temp): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 240_000 });
  if (r.error !== undefined) throw r.error;
  return r;
}

const ran: string[] = [];
/** Runs the brand's CLI, expecting exit status `status`; remembers the command for the docs check. */
function acme(args: readonly string[], status = 0): SpawnSyncReturns<string> {
  ran.push(["acme", ...args].join(" "));
  const r = sh("acme", args);
  expect(r.status, `acme ${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(status);
  return r;
}

function ok(r: SpawnSyncReturns<string>): SpawnSyncReturns<string> {
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return r;
}

/** An SDK 2.x client started from the configuration `acme mcp config` printed. */
async function mcpClient(): Promise<Client> {
  const printed = JSON.parse(acme(["mcp", "config", "--client", "cursor"]).stdout);
  const server = printed.mcpServers.acme as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  const client = new Client({ name: "newcomer", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...server.env, PATH: env.PATH! },
      stderr: "ignore",
    }),
  );
  return client;
}

/** The name the client lists for `identity` (looked up as the owner would, with `tools list`). */
async function toolOf(client: Client, identity: string): Promise<string> {
  const listed = JSON.parse(
    ok(sh("acme", ["--json", "tools", "list", "--endpoint", "cursor"])).stdout,
  ).result.tools as { identity: string; name: string }[];
  const name = listed.find((t) => t.identity === identity)?.name;
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain(name);
  return name!;
}

const TS_HANDLERS = `import { textResult } from "@rukh/ipc";
import type { Handlers } from "../rukh-types.js";

export const handlers: Handlers = {
  "jane.hello/hello": async (ctx) => {
    for (let step = 1; step <= 3; step++) {
      ctx.progress(step, 3, \`step \${step} of 3\`);
      await new Promise((r) => setTimeout(r, 150));
    }
    return textResult(\`Good day, \${ctx.inputs.name}!\\n\`);
  },
};
`;
const TS_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { handlers } from "../bin/handlers.js";

test("hello greets by name and reports progress", async () => {
  const seen = [];
  const result = await handlers["jane.hello/hello"]({
    inputs: { name: "Ada" },
    progress: (p) => seen.push(p),
  });
  assert.deepEqual(result, { commandResult: { kind: "text", text: "Good day, Ada!\\n" } });
  assert.deepEqual(seen, [1, 2, 3]);
});
`;
const PY_HANDLERS = `from rukh_ipc import structured_result


def hello(ctx):
    name = ctx.inputs["name"]
    return structured_result({"greeting": "Hello, %s!" % name, "letters": len(name)})


HANDLERS = {"jane.py/hello": hello}
`;
const PY_RESULT = {
  kind: "structured",
  schema: {
    type: "object",
    properties: {
      greeting: { type: "string", maxLength: 100 },
      letters: { type: "integer", minimum: 0 },
    },
    required: ["greeting", "letters"],
    additionalProperties: false,
  },
};

function editJson(file: string, edit: (value: Record<string, unknown>) => void) {
  const value = JSON.parse(readFileSync(file, "utf8"));
  edit(value);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function editText(file: string, from: string, to: string) {
  const text = readFileSync(file, "utf8");
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

describe.skipIf(missing.length > 0)("a newcomer, following the docs", () => {
  it("packs every public package with plain node, outside any workspace", () => {
    phaseStart = Date.now();
    const packed = ok(sh(process.execPath, [join(REPO, "scripts/pack-workspace.mjs"), tarballs]));
    expect(packed.stdout).toContain(
      `create-rukh-cli ${join(tarballs, "create-rukh-cli-0.1.0.tgz")}`,
    );
    phase("pack the public packages");
  }, 300_000);

  it("scaffolds acme from the tarballs, installs and builds it", () => {
    ok(
      sh("npm", [
        "exec",
        "--yes",
        `--package=${join(tarballs, "create-rukh-cli-0.1.0.tgz")}`,
        "--",
        "create-rukh-cli",
        "acme",
        "acme",
        "--packages",
        tarballs,
      ]),
    );
    const pkg = JSON.parse(readFileSync(join(acmeDir, "package.json"), "utf8"));
    expect(pkg.dependencies["@rukh/core"]).toBe("file:vendor/rukh/rukh-core-0.1.0.tgz");
    ok(sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], acmeDir));
    ok(sh("npm", ["run", "build"], acmeDir));
    phase("scaffold acme, npm install, build");
  }, 300_000);

  it("writes two extensions, TypeScript and Python, and edits their handlers and tests", () => {
    const key = acme(["keygen", "jane"]);
    expect(key.stdout).toContain(`wrote ${join(temp, "jane.key")}`);
    acme(["ext", "init", "hello-ts", "--id", "jane.hello", "--lang", "ts"]);
    acme(["ext", "init", "hello-py", "--id", "jane.py", "--lang", "python"]);

    writeFileSync(join(temp, "hello-ts/src/handlers.ts"), TS_HANDLERS);
    writeFileSync(join(temp, "hello-ts/test/hello.test.mjs"), TS_TEST);
    writeFileSync(join(temp, "hello-py/bin/handlers.py"), PY_HANDLERS);
    editJson(join(temp, "hello-py/rukh-extension.json"), (d) => {
      (d.commands as { execute: { result: unknown } }[])[0]!.execute.result = PY_RESULT;
    });
    editText(
      join(temp, "hello-py/test/test_hello.py"),
      '{"kind": "text", "text": "Hello, Ada!\\n"}',
      '{"kind": "structured", "data": {"greeting": "Hello, Ada!", "letters": 3}}',
    );

    // npm installs the package's runtime and compiler; the typed handler compiles; the tests pass.
    const hello = join(temp, "hello-ts");
    ok(sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], hello));
    ok(sh("npm", ["run", "build"], hello));
    expect(readFileSync(join(temp, "hello-ts/bin/handlers.js"), "utf8")).toContain("Good day");
    expect(nodeTestPasses(ok(sh("npm", ["test"], hello)).stdout)).toBe(1);
    expect(
      ok(sh("python3", ["-B", "-m", "unittest", "discover", "-s", "test"], join(temp, "hello-py")))
        .stderr,
    ).toContain("OK");
    phase("keygen, ext init ×2, edit, npm install and build, the packages' own tests");
  }, 120_000);

  it("validates, packs and signs both; the owner trusts the key and installs them at once", () => {
    expect(acme(["ext", "validate", "hello-ts"]).stdout).toContain(
      "valid — jane.hello@0.1.0, 1 command; unsigned",
    );
    expect(acme(["ext", "validate", "hello-py"]).stdout).toContain("valid — jane.py@0.1.0");
    expect(acme(["ext", "pack", "hello-ts", "--key", "jane.key"]).stdout).toContain(
      `packed jane.hello@0.1.0 into ${join(temp, "jane.hello-0.1.0.tgz")}`,
    );
    expect(acme(["ext", "sign", "hello-py", "--key", "jane.key"]).stdout).toContain(
      `signed ${join(temp, "hello-py")} as jane`,
    );
    expect(acme(["ext", "pack", "hello-py"]).stdout).toContain("signed by jane");
    acme(["trust", "add", "jane.pub", "--publisher", "jane"]);
    expect(acme(["ext", "install", "jane.hello-0.1.0.tgz", "jane.py-0.1.0.tgz"]).stdout).toMatch(
      /^installed jane\.hello 0\.1\.0, installed jane\.py 0\.1\.0; published/,
    );
    phase("validate ×2, pack ×2, sign, trust add, ext install");
  }, 120_000);

  it("runs both through the brand's CLI", () => {
    expect(acme(["hello", "hello", "Ada"]).stdout).toBe("Good day, Ada!\n");
    expect(JSON.parse(acme(["py", "hello", "Ada"]).stdout)).toEqual({
      greeting: "Hello, Ada!",
      letters: 3,
    });
    phase("run both on the CLI");
  });

  it("runs both through an SDK 2.x MCP client, in the strict sandbox, with progress", async () => {
    acme(["expose", "add", "jane.hello", "jane.py"]);
    acme(["preset", "allow", "agent", "jane.hello/*", "jane.py/*"]);
    const client = await mcpClient();
    try {
      const steps: number[] = [];
      const greeted = await client.callTool(
        { name: await toolOf(client, "jane.hello/hello"), arguments: { name: "Ada" } },
        { onprogress: (p) => steps.push(p.progress) },
      );
      expect(greeted.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "text", text: "Good day, Ada!\n" },
      });
      expect(steps.length).toBeGreaterThanOrEqual(2);
      expect(steps[0]).toBe(1);
      const counted = await client.callTool({
        name: await toolOf(client, "jane.py/hello"),
        arguments: { name: "Ada" },
      });
      expect(counted.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "structured", data: { greeting: "Hello, Ada!", letters: 3 } },
      });
    } finally {
      await client.close();
    }
    phase("expose, allow, mcp config, two MCP calls");
  }, 60_000);

  it("sees a broken result schema's issues on the CLI and over MCP", async () => {
    editJson(join(temp, "hello-py/rukh-extension.json"), (d) => {
      d.version = "0.2.0";
      const result = (d.commands as { execute: { result: typeof PY_RESULT } }[])[0]!.execute.result;
      result.schema.properties.letters = { type: "string" } as never;
    });
    acme(["ext", "sign", "hello-py", "--key", "jane.key"]);
    expect(acme(["ext", "install", "hello-py"]).stdout).toMatch(
      /^upgraded jane\.py 0\.1\.0 → 0\.2\.0/,
    );
    const broken = acme(["py", "hello", "Ada"], 3);
    expect(broken.stderr).toContain(
      "error: execution failed: the command's result does not match its declaration (execution_failed/invalid_result)\n  /data/letters: found an integer; expected a string (type_mismatch)\n",
    );
    const client = await mcpClient();
    try {
      const r = await client.callTool({
        name: await toolOf(client, "jane.py/hello"),
        arguments: { name: "Ada" },
      });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({
        outcome: "execution_failed",
        reason: "invalid_result",
      });
      const content = r.content as { type: string; text: string }[];
      expect(JSON.parse(content[1]!.text)).toEqual({
        message: "the command's result does not match its declaration",
        issues: [
          {
            path: "/data/letters",
            code: "type_mismatch",
            message: "found an integer; expected a string",
          },
        ],
      });
    } finally {
      await client.close();
    }
    phase("break the schema, sign, upgrade, see the issues twice");
  }, 60_000);

  it("links a third package and sees an edit on the next call, with no signing", () => {
    acme(["ext", "init", "hello-js", "--id", "jane.js"]);
    acme(["ext", "link", "hello-js"]);
    expect(acme(["js", "hello", "Ada"]).stdout).toBe("Hello, Ada!\n");
    editText(join(temp, "hello-js/src/handlers.mjs"), "Hello, ", "Howdy, ");
    const edited = acme(["js", "hello", "Ada"]);
    expect(edited.stdout).toBe("Howdy, Ada!\n");
    expect(edited.stderr).toContain("[dev] jane.js changed: linked again");
    expect(existsSync(join(temp, "hello-js/rukh-signature.json"))).toBe(false);
    phase("ext init, link, run, edit, run");
  });

  it("ran only commands the walkthrough shows", () => {
    const shown = WALKTHROUGH.replaceAll("'", "");
    const absent = [...new Set(ran)].filter(
      (c) => !shown.includes(`$ ${c}\n`) && !shown.includes(`$ ${c} `),
    );
    expect(absent).toEqual([]);
    // And the walkthrough shows nothing this test does not run.
    const walked = [...shown.matchAll(/^\$ (acme .*?)\s*(?:#.*)?$/gm)].map((m) => m[1]!);
    expect(walked.filter((c) => !ran.includes(c))).toEqual([]);
  });
});

// The brand itself, and the harness from an author's own test runner.
describe.skipIf(missing.length > 0)("the scaffolded acme", () => {
  it("passes its own tests", () => {
    const r = spawnSync("npm", ["test"], {
      cwd: acmeDir,
      encoding: "utf8",
      env: { ...env, CI: "true" },
    });
    const text = (r.stdout + r.stderr).replace(/\u001b\[[0-9;]*m/g, "");
    expect(text).toMatch(/Tests\s+\d+ passed/);
    expect(r.status).toBe(0);
  }, 120_000);

  it("runs as its own brand: ACME_HOME, never RUKH_HOME, and its doctor passes", () => {
    expect(ok(sh("acme", ["--version"])).stdout).toBe("acme 0.1.0\n");
    const fresh = join(temp, "fresh-home");
    const r = spawnSync("acme", ["doctor"], {
      encoding: "utf8",
      env: { ...env, RUKH_HOME: join(temp, "rukh-home"), ACME_HOME: fresh },
    });
    expect(r.stdout).toContain(`state directory: ${fresh}`);
    expect(r.stdout).not.toContain("rukh-home");
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(ok(sh("acme", ["--help"])).stdout).toContain("(ACME_HOME wins)");
  });

  it("gives an author's own node --test the harness, installed from the tarballs", () => {
    const project = join(temp, "harness-project");
    mkdirSync(project);
    // The brand's vendored tarballs, named from this project.
    const overrides = Object.fromEntries(
      Object.entries(
        JSON.parse(readFileSync(join(acmeDir, "package.json"), "utf8")).overrides as Record<
          string,
          string
        >,
      ).map(([name, spec]) => [name, `file:${join(acmeDir, spec.slice("file:".length))}`]),
    );
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "jane-hello-tests",
        private: true,
        type: "module",
        devDependencies: { "@rukh/harness": overrides["@rukh/harness"] },
        overrides,
      }),
    );
    ok(sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], project));
    mkdirSync(join(project, "test"));
    writeFileSync(
      join(project, "test", "hello.test.mjs"),
      `import assert from "node:assert/strict";
import { test } from "node:test";
import { testExtension } from "@rukh/harness";

test("hello greets through the real core", async () => {
  const h = await testExtension(${JSON.stringify(join(temp, "hello-ts"))});
  try {
    const out = await h.call("hello", { name: "Ada" });
    assert.deepEqual(out.commandResult, { kind: "text", text: "Good day, Ada!\\n" });
    assert.deepEqual(out.progress.map((p) => p.progress), [1, 2, 3]);
    const bad = await h.call("hello", { name: "" });
    assert.equal(bad.reason, "invalid_input");
  } finally {
    await h.close();
  }
});
`,
    );
    const tested = sh(process.execPath, ["--test", "test/hello.test.mjs"], project);
    expect(nodeTestPasses(tested.stdout), tested.stdout + tested.stderr).toBe(1);
    expect(tested.status).toBe(0);
  }, 300_000);
});
