import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { authorWork } from "../_author.js";

// Typed handlers from the built CLI: `ext init --lang ts` and `ext types`
// give every command's inputs and result a type, and the real TypeScript
// compiler holds a handler to them.
const { work, rukh } = authorWork("rukh-cli-types-");
const TSC = join(
  dirname(createRequire(import.meta.url).resolve("typescript/package.json")),
  "bin",
  "tsc",
);
/** Each compile takes seconds on a loaded machine. */
const TSC_TIMEOUT_MS = 120_000;
const tsc = (dir: string) =>
  spawnSync(process.execPath, [TSC, "-p", dir, "--pretty", "false"], { encoding: "utf8" });

const pkg = join(work, "hi");
const descriptorFile = join(pkg, "rukh-extension.json");

/** A second command with every kind of input and a structured result. */
const stats = {
  id: "stats",
  path: ["hi", "stats"],
  summary: "Count things */ carefully",
  inputs: [
    { id: "count", type: "integer", minimum: 1, maximum: 9, default: 3, summary: "How many" },
    { id: "mode", type: "enum", values: ["fast", "exact"], required: true, summary: "How" },
    { id: "ratio", type: "decimal", summary: "A decimal, as a string" },
    {
      id: "tags",
      type: "list",
      items: { type: "string", maxLength: 8 },
      maxItems: 4,
      summary: "Labels",
    },
  ],
  execute: {
    mapping: "managed",
    program: "bin/hello.js",
    runtime: "node",
    result: {
      kind: "structured",
      schema: {
        type: "object",
        properties: {
          total: { type: "integer", description: "The sum" },
          mode: { type: "string", enum: ["fast", "exact"] },
          "tag-list": { type: "array", items: { type: "string" }, maxItems: 4 },
          note: { type: "null" },
          grid: {
            type: "array",
            maxItems: 2,
            items: { type: "array", maxItems: 2, items: { type: "integer" } },
          },
          empty: { type: "object", properties: {}, additionalProperties: false },
        },
        required: ["total", "mode", "tag-list"],
        additionalProperties: false,
      },
    },
  },
  machine: { eligible: true, interaction: "none", requiredFeatures: ["rukh.command-result/1"] },
};

/** A command without a declared result (not machine-eligible): its handler may return nothing. */
const plain = {
  id: "plain",
  path: ["hi", "plain"],
  summary: "Do something quietly",
  inputs: [],
  execute: { mapping: "managed", program: "bin/hello.js", runtime: "node" },
};

const goodHandlers = `import { structuredResult, textResult } from "@rukh/ipc";
import type { Handlers } from "../rukh-types.js";

export const handlers: Handlers = {
  "jane.hi/hello": (ctx) => textResult(\`Hello, \${ctx.inputs.name}!\\n\`),
  "jane.hi/stats": (ctx) => {
    const tags: readonly string[] = ctx.inputs.tags ?? [];
    const mode: "fast" | "exact" = ctx.inputs.mode;
    return structuredResult({ total: ctx.inputs.count * 2, mode, "tag-list": tags, grid: [[1, 2]] });
  },
  // No return at all: it succeeds without a result.
  "jane.hi/plain": (ctx) => {
    ctx.log.info("quietly");
  },
};
`;

describe("typed handlers", () => {
  beforeAll(() => {
    const made = rukh("ext", "init", pkg, "--id", "jane.hi", "--lang", "ts");
    expect(made.status, made.stderr).toBe(0);
  });

  it(
    "a TypeScript skeleton compiles with its generated types and runs as written",
    () => {
      const built = tsc(pkg);
      expect(built.status, built.stdout).toBe(0);
      const tested = spawnSync(process.execPath, ["--test"], { cwd: pkg, encoding: "utf8" });
      expect(tested.status, tested.stdout).toBe(0);
      expect(rukh("ext", "types", pkg, "--check").status).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );

  it("ext types follows the descriptor, and validate says when the types are stale", () => {
    const descriptor = JSON.parse(readFileSync(descriptorFile, "utf8"));
    writeFileSync(
      descriptorFile,
      JSON.stringify({ ...descriptor, commands: [...descriptor.commands, stats, plain] }, null, 2),
    );
    const stale = rukh("ext", "types", pkg, "--check");
    expect(stale.status).toBe(4);
    expect(stale.stderr).toContain("rukh-types.d.ts is out of date; run: rukh ext types");
    expect(rukh("ext", "validate", pkg).stdout).toContain("note: rukh-types.d.ts is out of date");
    const kept = readFileSync(join(pkg, "rukh-types.d.ts"));
    unlinkSync(join(pkg, "rukh-types.d.ts"));
    expect(rukh("ext", "validate", pkg).stdout).toContain(
      `note: rukh-types.d.ts is missing, and tsconfig.json compiles this package; run: rukh ext types ${pkg}`,
    );
    writeFileSync(join(pkg, "rukh-types.d.ts"), kept);

    const wrote = rukh("ext", "types", pkg);
    expect(wrote.status, wrote.stderr).toBe(0);
    expect(wrote.stdout).toContain("wrote");
    expect(wrote.stdout).toContain("types of 3 commands of jane.hi@0.1.0");
    const types = readFileSync(join(pkg, "rukh-types.d.ts"), "utf8");
    // The summary cannot close the comment it is quoted in.
    expect(types).toContain("Count things *\\/ carefully");
    expect(types).toContain("readonly count: number;");
    expect(types).toContain('readonly mode: "fast" | "exact";');
    expect(types).toContain("readonly ratio?: string;");
    expect(types).toContain('readonly "tag-list": readonly string[];');
    expect(rukh("ext", "types", pkg).stdout).toContain("kept");
  });

  it(
    "the compiler accepts a handler that matches and names each mistake that does not",
    () => {
      writeFileSync(join(pkg, "src", "handlers.ts"), goodHandlers);
      const good = tsc(pkg);
      expect(good.status, good.stdout).toBe(0);

      const mistakes: [string, string, RegExp][] = [
        [
          "a misspelt input",
          "ctx.inputs.name}",
          /TS(2339|2551): Property 'nmae' does not exist on type '\{ readonly name: string; \}'/,
        ],
        ["an input of the wrong type", "ctx.inputs.count * 2", /TS2362|TS2322/],
        ["a missing result member", ', "tag-list": tags, grid', /TS2741|TS2322|TS2345/],
        ["a value outside an enum", 'const mode: "fast" | "exact" = ctx.inputs.mode;', /TS2322/],
        ["a command that does not exist", '"jane.hi/hello":', /TS2353|TS2561/],
        ["a misspelt optional result member", "grid: [[1, 2]]", /TS2353|TS2561/],
        ["a value that is not JSON", "grid: [[1, 2]]", /TS2322/],
      ];
      const broken = [
        goodHandlers.replace("ctx.inputs.name}", "ctx.inputs.nmae}"),
        goodHandlers.replace("ctx.inputs.count * 2", 'ctx.inputs.mode + "x"'),
        goodHandlers.replace(', "tag-list": tags, grid', ", grid"),
        goodHandlers.replace(
          'const mode: "fast" | "exact" = ctx.inputs.mode;',
          'const mode = "slow" as const;',
        ),
        goodHandlers.replace('"jane.hi/hello":', '"jane.hi/helo":'),
        goodHandlers.replace("grid: [[1, 2]]", "gird: [[1, 2]]"),
        goodHandlers.replace("grid: [[1, 2]]", "grid: [[new Date()]]"),
      ];
      // One compile of every mistake, each in a file of its own: each file must
      // have its own error (and a failed compile writes nothing into bin/).
      const mistakeFile = (i: number) => join(pkg, "src", `mistake${i}.ts`);
      for (const i of mistakes.keys()) writeFileSync(mistakeFile(i), broken[i]!);
      const r = tsc(pkg);
      expect(r.status).not.toBe(0);
      const errorsOf = (i: number) =>
        r.stdout
          .split("\n")
          .filter((l) => l.includes(`mistake${i}.ts(`))
          .join("\n");
      for (const [i, [what, , expected]] of mistakes.entries()) {
        expect(errorsOf(i), `${what} compiled`).not.toBe("");
        expect(errorsOf(i), what).toMatch(expected);
      }
      for (const i of mistakes.keys()) rmSync(mistakeFile(i));
      expect(tsc(pkg).status).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );

  it(
    "a JavaScript skeleton is type-checked through JSDoc from the same types",
    () => {
      const js = join(work, "js");
      expect(rukh("ext", "init", js, "--id", "jane.js").status).toBe(0);
      const clean = tsc(js);
      expect(clean.status, clean.stdout).toBe(0);
      const file = join(js, "src", "handlers.mjs");
      writeFileSync(file, readFileSync(file, "utf8").replace("ctx.inputs.name", "ctx.inputs.nmae"));
      const r = tsc(js);
      expect(r.status).not.toBe(0);
      expect(r.stdout).toMatch(/handlers\.mjs.*Property 'nmae' does not exist/);
    },
    TSC_TIMEOUT_MS,
  );

  it("the compiled package installs and runs both commands", () => {
    const key = rukh("--json", "keygen", "jane", "--out", work);
    expect(key.status, key.stderr).toBe(0);
    const { privateKey, publicKey } = JSON.parse(key.stdout).result;
    expect(rukh("ext", "sign", pkg, "--key", privateKey).status).toBe(0);
    expect(rukh("trust", "add", publicKey, "--publisher", "jane").status).toBe(0);
    const installed = rukh("ext", "install", pkg);
    expect(installed.status, installed.stderr).toBe(0);
    expect(rukh("hi", "hello", "Ada").stdout).toBe("Hello, Ada!\n");
    const ran = rukh("--json", "hi", "stats", "--mode", "exact", "--tags", "a", "--tags", "b");
    expect(ran.status, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).outcome.commandResult).toEqual({
      kind: "structured",
      data: { total: 6, mode: "exact", "tag-list": ["a", "b"], grid: [[1, 2]] },
    });
  });
});
