import { beforeAll, describe, expect, it } from "vitest";
import { type CliOptions, completionScript, createCli, EXIT_CODES } from "../src/index.js";
import { makeHome } from "./_helpers.js";
import { inProcess } from "./_in-process.js";

let home: string;
beforeAll(async () => {
  home = await makeHome();
}, 60_000);

const cli = (over: Partial<CliOptions> = {}, env: Record<string, string> = {}) =>
  inProcess(home, over, env);

/** Runs `acme echo …` and returns the typed inputs the command received. */
async function echo(...args: string[]) {
  const r = await cli()("echo", ...args);
  return { ...r, inputs: r.code === 0 ? JSON.parse(r.out) : undefined };
}

describe("lexing: the lexer hands over raw strings only", () => {
  it.each([
    [["--label", "0x10"], { label: "0x10" }],
    [["--label=1e3"], { label: "1e3" }],
    [["-l", "08080"], { label: "08080" }],
    [["--big", "9007199254740993"], { big: "9007199254740993" }],
    [["--big=-0.50"], { big: "-0.50" }],
    [["--limit", "-5"], { limit: -5 }],
    [["--limit=1000"], { limit: 1000 }],
    [["--ratio", "0.25"], { ratio: 0.25 }],
    [["--label", "true"], { label: "true" }],
    [["--label=--not-a-flag"], { label: "--not-a-flag" }],
    [["--label", "a.b"], { label: "a.b" }],
    [["--verbose"], { verbose: true }],
    [["-v"], { verbose: true }],
    [["--verbose=false"], { verbose: false }],
    [["--verbose=true"], { verbose: true }],
    [["--tag", "a", "--tag", "b,c"], { tag: ["a", "b,c"] }],
    [["--mode", "slow"], { mode: "slow" }],
    [["-l=0x1"], { label: "0x1" }],
    [["--label", "-"], { label: "-" }],
    [["--label="], { label: "" }],
    [["-v=false"], { verbose: false }],
  ])("%j decodes exactly", async (args, expected) => {
    const r = await echo(...args);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.inputs).toMatchObject(expected);
  });

  it.each([
    [["--limit", "0x10"], '--limit: got "0x10"; expected an integer'],
    [["--limit", "1e3"], '--limit: got "1e3"; expected an integer'],
    [["--port", "08080"], '--port: got "08080"; expected an integer'],
    [["--limit", "9007199254740993"], "--limit:"],
    [["--limit", "1001"], "--limit: got 1001; expected at most 1000"],
    [["--verbose=maybe"], '--verbose: got "maybe"; expected true or false'],
    [["--mode", "medium"], '--mode: got "medium"; expected one of "fast", "slow"'],
    [["--nope"], "unknown flag --nope"],
    [["--lable", "x"], "unknown flag --lable; did you mean --label?"],
    [["--Label", "x"], "unknown flag --Label; did you mean --label?"],
    [["--label.x", "1"], "unknown flag --label.x"],
    [["--no-verbose"], "unknown flag --no-verbose"],
    [["-lv", "x"], "unknown flag -lv"],
    [["-x"], "unknown flag -x"],
    [["--label"], "--label needs a value <string>"],
    [["--label", "--verbose"], "--label needs a value <string>"],
    [["--limit", "1", "--limit", "2"], "--limit was given 2 times; expected one value"],
    [["extra"], 'unexpected argument "extra"; it takes no arguments'],
    [["--home", "/tmp"], "--home must come before the command path"],
    [["--json=1"], "--json takes no value; expected --json alone"],
    [["-5"], 'unexpected argument "-5"; it takes no arguments'],
    [["--label", "--"], "--label needs a value <string>"],
    [["-label", "x"], "unknown flag -label; did you mean --label?"],
  ])("%j is a usage error naming the flag", async (args, message) => {
    const r = await echo(...args);
    expect(r.code).toBe(EXIT_CODES.usage);
    expect(r.err).toContain(`error: ${message}`);
    expect(r.err).toContain("  $ acme echo --help");
    expect(r.out).toBe("");
  });

  it("assigns positionals in order, a list positional taking the rest, -- ending flags", async () => {
    const r = await cli()("files", "count", "a", "--format", "long", "b", "--", "--c", "-5");
    expect(r.err).toBe("");
    expect(JSON.parse(r.out)).toEqual({
      total: 4,
      inputs: { paths: ["a", "b", "--c", "-5"], format: "long" },
    });
  });

  it("names positionals and required flags in errors", async () => {
    const r = await cli()("files", "count");
    expect(r.code).toBe(EXIT_CODES.usage);
    expect(r.err).toContain("error: <paths> is required");
    expect(r.err).toContain("error: --format is required; expected --format <short|long>");
  });
});

describe("output", () => {
  it("prints a text result exactly as returned", async () => {
    expect(await cli()("hello", "wörld")).toEqual({ code: 0, out: "hello wörld\n", err: "" });
    expect((await cli()("echo")).out).toBe('{"limit":10,"mode":"fast"}');
  });

  it.each([
    [false, '{"inputs":{"format":"short","paths":["a"]},"total":1}\n'],
    [
      true,
      '{\n  "inputs": {\n    "format": "short",\n    "paths": [\n      "a"\n    ]\n  },\n  "total": 1\n}\n',
    ],
  ])("prints structured results as JSON (TTY: %s)", async (isTTY, text) => {
    expect((await cli({ isTTY })("wc", "a", "--format=short")).out).toBe(text);
  });

  it("--json prints the MCP envelope inside the versioned envelope, before or after the command path", async () => {
    for (const argv of [
      ["--json", "hello", "x"],
      ["hello", "x", "--json"],
    ]) {
      const r = await cli()(...argv);
      const envelope = JSON.parse(r.out);
      expect(Object.keys(envelope)).toEqual(["rukhOutput", "command", "outcome"]);
      expect(envelope).toMatchObject({ rukhOutput: 2, command: "hello" });
      expect(Object.keys(envelope.outcome)).toEqual([
        "invocationId",
        "outcome",
        "reason",
        "commandResult",
      ]);
      expect(envelope.outcome).toMatchObject({
        outcome: "succeeded",
        reason: "completed",
        commandResult: { kind: "text", text: "hello x\n" },
      });
    }
    // One line on a terminal too.
    const tty = await cli({ isTTY: true })("--json", "hello", "x");
    expect(tty.out.indexOf("\n")).toBe(tty.out.length - 1);
    expect(JSON.parse(tty.out)).toMatchObject({
      command: "hello",
      outcome: { outcome: "succeeded" },
    });
    // A failure's message is in the envelope, and stderr says nothing more.
    const failed = await cli()("--json", "fail");
    expect(failed.code).toBe(EXIT_CODES.commandFailed);
    expect(JSON.parse(failed.out)).toMatchObject({
      command: "fail",
      outcome: {
        outcome: "command_failed",
        reason: "command_reported",
        diagnostic: { message: expect.stringContaining("nothing to do here") },
      },
    });
    expect(failed.err).toBe("");
  });

  it("--json prints a usage error as the error envelope on stdout, wherever --json is written", async () => {
    for (const argv of [
      ["--json", "echo", "--nope"],
      ["echo", "--nope", "--json"],
      ["--json", "echo", "--limit", "x"],
    ]) {
      const r = await cli()(...argv);
      expect({ argv, code: r.code, err: r.err }).toEqual({ argv, code: EXIT_CODES.usage, err: "" });
      expect(JSON.parse(r.out)).toEqual({
        rukhOutput: 2,
        command: "echo",
        error: {
          code: "usage",
          message: expect.any(String),
          exitCode: 2,
          recovery: "acme echo --help",
        },
      });
    }
    const unknown = await cli()("--json", "nope");
    expect(unknown.err).toBe("");
    expect(JSON.parse(unknown.out)).toMatchObject({
      command: null,
      error: { code: "usage", exitCode: 2, recovery: "acme --help" },
    });
  });

  it.each([
    ["TTY", { isTTY: true }, {}, true],
    ["NO_COLOR", { isTTY: true }, { NO_COLOR: "1" }, false],
    ["non-TTY", { isTTY: false }, {}, false],
  ])("colour: %s", async (_name, over, env, ansi) => {
    const r = await cli(over, env)("nope");
    expect(r.err.includes("\u001b[")).toBe(ansi);
    const h = await cli(over, env)("--help");
    expect(h.out.includes("\u001b[")).toBe(ansi);
  });

  it("--no-color turns colour off on a TTY", async () => {
    const r = await cli({ isTTY: true })("--no-color", "nope");
    expect(r.err.includes("\u001b[")).toBe(false);
  });
});

describe("help", () => {
  it("root help lists groups and top-level commands with summaries", async () => {
    const r = await cli()("--help");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^acme 1\.0\.0\n\nUsage: acme <command> \[flags\]/);
    expect(r.out).toMatch(/ {2}files … +Work with files\n/);
    expect(r.out).toMatch(/ {2}hello +Say hello\n/);
    expect(r.out).toMatch(/ {2}wc +Count the given paths \(alias of acme files count\)\n/);
    expect(r.out).not.toContain("__complete");
    expect(await cli()()).toEqual(r);
    expect(await cli()("help")).toEqual(r);
  });

  it("group help lists its commands", async () => {
    const r = await cli()("files", "--help");
    expect(r.out).toContain("Usage: acme files <command> [flags]\n\n    Work with files\n");
    expect(r.out).toMatch(/ {2}count +Count the given paths\n/);
    expect(await cli()("help", "files")).toEqual(r);
    expect(await cli()("files")).toEqual(r);
  });

  it("command help shows usage, every flag with placeholder, default and required marker", async () => {
    const r = await cli()("files", "count", "--help");
    expect(r.out).toContain("Usage: acme files count <paths>... [flags]\n");
    expect(r.out).toMatch(/<paths>\.\.\. +Paths to count \(required\)/);
    expect(r.out).toMatch(/--format <short\|long> +Output format \(required\)/);
    expect(r.out).toContain("Aliases:\n  acme wc\n");
    const echo = (await cli()("help", "echo")).out;
    for (const row of [
      /-l, --label <string> +The label\n/,
      /--limit <integer> +A limit \(default: 10\)\n/,
      /--big <decimal> +An exact decimal\n/,
      /-v, --verbose +Say more \(--verbose or --verbose=false\)\n/,
      /--mode <fast\|slow> +The mode \(default: "fast"\)\n/,
      /--tag <string> +Tags \(repeatable\)\n/,
    ])
      expect(echo).toMatch(row);
    expect((await cli()("wc", "-h")).out).toBe(r.out);
  });

  it("a passthrough program gets --help; acme help shows the CLI's help", async () => {
    const r = await cli()("help", "kit", "pt");
    expect(r.out).toContain("Usage: acme kit pt [arguments passed to the program...]");
    expect((await cli()("--help", "kit", "pt")).out).toBe(r.out);
  });

  it("unknown commands suggest the closest real path", async () => {
    const r = await cli()("files", "cuont", "a");
    expect(r.code).toBe(EXIT_CODES.usage);
    expect(r.err).toContain('unknown command "acme files cuont"; did you mean "acme files count"?');
    expect(r.err).toContain("  $ acme files count --help");
    expect((await cli()("helo")).err).toContain('did you mean "acme hello"?');
    expect((await cli()("help", "fils")).err).toContain('did you mean "acme files"?');
  });

  it("--version and unknown global flags", async () => {
    expect(await cli()("--version")).toEqual({ code: 0, out: "acme 1.0.0\n", err: "" });
    const r = await cli()("--bogus", "hello");
    expect(r.code).toBe(EXIT_CODES.usage);
    expect(r.err).toContain("unknown flag --bogus before the command");
    // --json among the global flags, past --home and its value, asks for the mistake as JSON.
    const json = await cli()("--home", "/nowhere", "--bogus", "--json", "hello");
    expect(json.code).toBe(EXIT_CODES.usage);
    expect(json.err).toBe("");
    expect(JSON.parse(json.out).error).toMatchObject({ code: "usage", exitCode: 2 });
  });

  it("built-ins are routed and get their raw arguments", async () => {
    const seen: (readonly string[])[] = [];
    const run = cli({
      builtins: [
        {
          path: ["mcp", "serve"],
          summary: "Serve MCP",
          run: ({ args }) => {
            seen.push(args);
            return 0;
          },
        },
      ],
    });
    expect((await run("mcp", "serve", "--port", "0x1")).code).toBe(0);
    expect(seen).toEqual([["--port", "0x1"]]);
    expect((await run("--help")).out).toMatch(/ {2}mcp … *\n/);
    expect((await run("mcp", "--help")).out).toMatch(/ {2}serve +Serve MCP\n/);
  });
});

describe("declared built-ins", () => {
  const seen: Record<string, unknown>[] = [];
  const run = cli({
    builtins: [
      {
        path: ["ext", "install"],
        summary: "Install a package",
        inputs: [
          {
            id: "package",
            type: "string",
            minLength: 1,
            maxLength: 4096,
            positional: 0,
            required: true,
            summary: "The package file",
          },
          {
            id: "allow_downgrade",
            type: "boolean",
            default: false,
            summary: "Install a lower version",
          },
          { id: "preset", type: "string", maxLength: 64, summary: "Allow it in this preset" },
          { id: "client", type: "enum", values: ["claude-code", "vscode"], summary: "A client" },
        ],
        suggest: (id) =>
          id === "preset" ? ["agent", "default"] : id === "package" ? ["a.tgz", "b.tgz"] : [],
        run: ({ inputs }) => {
          seen.push(inputs);
          return 0;
        },
      },
    ],
  });

  it("are lexed, decoded and validated like extension commands, and get typed inputs", async () => {
    expect(
      (await run("ext", "install", "x.tgz", "--allow-downgrade", "--preset", "agent")).code,
    ).toBe(0);
    expect(seen.at(-1)).toEqual({ package: "x.tgz", allow_downgrade: true, preset: "agent" });
    const missing = await run("ext", "install");
    expect(missing.code).toBe(EXIT_CODES.usage);
    expect(missing.err).toMatch(/^error: .*<package>.*\nSee:\n {2}\$ acme ext install --help\n$/s);
    const unknown = await run("ext", "install", "x.tgz", "--alow-downgrade");
    expect(unknown.err).toContain("--allow-downgrade");
    expect((await run("ext", "install", "x.tgz", "--client", "emacs")).err).toContain(
      "claude-code",
    );
  });

  it("have generated help and complete their flags and values", async () => {
    const help = (await run("ext", "install", "--help")).out;
    expect(help).toContain("Usage: acme ext install <package> [flags]");
    expect(help).toMatch(/--allow-downgrade +Install a lower version/);
    const words = async (...w: string[]) =>
      (await run("__complete", "--", ...w)).out.split("\n").filter(Boolean);
    expect(await words("ext", "install", "x.tgz", "--")).toEqual(
      expect.arrayContaining(["--allow-downgrade", "--preset", "--client"]),
    );
    expect(await words("ext", "install", "x.tgz", "--preset", "")).toEqual(["agent", "default"]);
    expect(await words("ext", "install", "x.tgz", "--client", "")).toEqual([
      "claude-code",
      "vscode",
    ]);
    expect(await words("ext", "install", "")).toEqual(["a.tgz", "b.tgz"]);
  });

  it.each<[string, object, string]>([
    ["a reserved flag", { id: "json", type: "boolean", summary: "x" }, "/0/inputs/0/flag"],
    [
      "a constraint of another type",
      { id: "n", type: "boolean", minimum: 1, summary: "x" },
      "/0/inputs/0/minimum",
    ],
    ["no summary", { id: "n", type: "boolean" }, "/0/inputs/0/summary"],
  ])(
    "with %s fail loudly, naming where (the brand's mistake, not the user's)",
    async (_, input, at) => {
      const broken = cli({
        builtins: [
          {
            path: ["broken"],
            summary: "Broken",
            inputs: [JSON.parse(JSON.stringify(input))],
            run: () => 0,
          },
        ],
      });
      for (const argv of [["broken"], ["broken", "--help"]]) {
        const r = await broken(...argv);
        expect(r.code).toBe(EXIT_CODES.internal);
        expect(r.err).toContain(`built-in "broken" declares invalid inputs: ${at} `);
      }
    },
  );
});

describe("help names only flags that exist", () => {
  const GLOBAL = new Set(["--help", "--version", "--json", "--home", "--no-color"]);
  it.each([["hello"], ["echo"], ["files", "count"], ["fail"], ["slow"], ["kit", "pt"]])(
    "acme %s --help",
    async (...path) => {
      const r = await cli()("help", ...path);
      const flags = new Set([...r.out.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((m) => m[0]));
      const declared = new Set(
        [...(await cli()("__complete", "--", ...path, "--")).out.split("\n")].filter(Boolean),
      );
      for (const f of flags) expect(GLOBAL.has(f) || declared.has(f), f).toBe(true);
    },
  );
});

describe("API misuse", () => {
  it.each([
    [() => createCli({ brand: "Acme" }), "invalid_option"],
    // Its state variable would be JAVA_HOME, another tool's.
    [() => createCli({ brand: "java" }), "invalid_option"],
    [
      () => createCli({ brand: "acme", builtins: [{ path: ["help"], summary: "", run: () => 0 }] }),
      "builtin_conflict",
    ],
    [() => completionScript("fish", "acme"), "unknown_shell"],
  ])("throws CliError %#", (f, code) => {
    expect(f).toThrowError(expect.objectContaining({ name: "CliError", code }));
  });

  it("`completion bash` prints completionScript", async () => {
    expect((await cli()("completion", "bash")).out).toBe(completionScript("bash", "acme"));
    expect((await cli()("completion", "fish")).code).toBe(EXIT_CODES.usage);
  });

  it("--home picks the state directory when ACME_HOME is unset", async () => {
    const run = cli({ env: {} });
    expect((await run("--home", home, "hello", "x")).out).toBe("hello x\n");
    expect((await run(`--home=${home}`, "files", "--help")).out).toContain("count");
  });
});
