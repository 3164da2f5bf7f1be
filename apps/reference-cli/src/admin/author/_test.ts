// `ext test`: a package's commands through the real core, from the CLI. The
// package is installed by @rukh/harness into a throw-away state directory
// with a throw-away key; each case of a cases file is one call and what its
// outcome must hold.

import { resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { type BuiltinContext, type CliBuiltin, terminalLine } from "@rukh/cli";
import {
  type AdminBody,
  arg,
  bool,
  flag,
  OK,
  plural,
  print,
  REFUSED,
  readOwnerFile,
  text,
  UsageError,
} from "../kit/index.js";

/** Largest cases file read. */
const CASES_MAX_BYTES = 1024 * 1024;
/** Most cases in one file. */
const CASES_MAX = 1_000;
/** What a case's `expect` may hold: members of the outcome, each compared exactly. */
const EXPECTED = ["outcome", "reason", "commandResult", "effects", "diagnostic"] as const;

interface TestCase {
  readonly name: string;
  readonly command: string;
  readonly inputs: Record<string, unknown>;
  readonly surface: "cli" | "mcp";
  readonly expect: Readonly<Record<string, unknown>>;
}

/** `ext test`. */
export function testBuiltins(guarded: (fn: AdminBody) => CliBuiltin["run"]): CliBuiltin[] {
  return [
    {
      path: ["ext", "test"],
      summary:
        "Install a package into a throw-away state directory with a throw-away key and run the calls of a cases file through the real core",
      inputs: [
        arg("dir", "The package directory"),
        flag(
          "cases",
          "A JSON file: [{ name?, command, inputs?, surface?, expect: { outcome?, reason?, commandResult?, effects?, diagnostic? } }]",
          { maxLength: 4096 },
        ),
        bool("strict", "Confine the commands with the strict profile (needs bubblewrap)"),
      ],
      run: guarded(async (ctx) => {
        const dir = resolve(text(ctx.inputs, "dir")!);
        const casesFile = text(ctx.inputs, "cases");
        const cases = casesFile === undefined ? [] : await readCases(resolve(casesFile));
        const { testExtension } = await import("@rukh/harness");
        const h = await testExtension(dir, {
          enforcement: ctx.inputs.strict === true ? "strict" : "host-trusted",
        });
        try {
          // Every case names a command the package declares, before any runs.
          cases.forEach((c, i) => {
            const identity = c.command.includes("/") ? c.command : `${h.id}/${c.command}`;
            if (!h.commands.includes(identity))
              throw new UsageError(
                `--cases ${casesFile} /${i}/command: the package declares no command ${JSON.stringify(identity)}; it declares ${h.commands.join(", ")}`,
              );
          });
          return await runCases(ctx, h, cases);
        } finally {
          await h.close();
        }
      }),
    },
  ];
}

async function runCases(
  ctx: BuiltinContext,
  h: Awaited<ReturnType<typeof import("@rukh/harness").testExtension>>,
  cases: readonly TestCase[],
): Promise<number> {
  const results: { name: string; ok: boolean; failures: string[]; outcome: object }[] = [];
  for (const c of cases) {
    const outcome = await h.call(c.command, c.inputs as never, { surface: c.surface });
    const got = outcome as unknown as Record<string, unknown>;
    const failures = Object.entries(c.expect)
      .filter(([k, want]) => !isDeepStrictEqual(got[k], want))
      .map(([k, want]) => `${k}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got[k])}`);
    results.push({ name: c.name, ok: failures.length === 0, failures, outcome });
  }
  const failed = results.filter((r) => !r.ok).length;
  const lines = [
    `installed ${h.id}@${h.version} (${plural(h.commands.length, "command")}) into a throw-away state directory`,
    ...results.flatMap((r) => [
      `${r.ok ? "ok  " : "FAIL"} ${terminalLine(r.name)}`,
      ...r.failures.map((f) => `     ${terminalLine(f)}`),
    ]),
    cases.length === 0
      ? "no cases given (--cases <file>): the package installs"
      : `${cases.length - failed} of ${cases.length} cases passed`,
  ];
  print(ctx, lines.join("\n"), {
    id: h.id,
    version: h.version,
    commands: h.commands,
    passed: cases.length - failed,
    failed,
    cases: results,
  });
  return failed === 0 ? OK : REFUSED;
}

/** Reads and checks a cases file, naming the pointer of the first thing wrong. */
async function readCases(file: string): Promise<TestCase[]> {
  const { parseJson } = await import("@rukh/json");
  const parsed = parseJson(readOwnerFile(file, CASES_MAX_BYTES, "test cases (strict JSON)"), {
    limits: { maxBytes: CASES_MAX_BYTES, maxDepth: 64, maxNodes: 100_000 },
  });
  if (!parsed.ok) throw new UsageError(`--cases ${file}: ${parsed.error.message}`);
  const wrong = (path: string, what: string) =>
    new UsageError(`--cases ${file} ${path}: expected ${what}`);
  const list = parsed.value;
  if (!Array.isArray(list)) throw wrong("", "an array of cases");
  if (list.length > CASES_MAX) throw wrong("", `at most ${CASES_MAX} cases`);
  return list.map((c, i): TestCase => {
    const at = `/${i}`;
    if (typeof c !== "object" || c === null || Array.isArray(c)) throw wrong(at, "an object");
    for (const k of Object.keys(c))
      if (!["name", "command", "inputs", "surface", "expect"].includes(k))
        throw wrong(`${at}/${k}`, "no such member (name, command, inputs, surface, expect)");
    if (typeof c.command !== "string" || c.command === "")
      throw wrong(`${at}/command`, "a command id or identity");
    if (c.name !== undefined && (typeof c.name !== "string" || c.name.length > 200))
      throw wrong(`${at}/name`, "a string of at most 200 characters");
    const inputs = c.inputs ?? {};
    if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs))
      throw wrong(`${at}/inputs`, "an object of inputs");
    const surface = c.surface ?? "cli";
    if (surface !== "cli" && surface !== "mcp") throw wrong(`${at}/surface`, '"cli" or "mcp"');
    const expect = c.expect;
    if (typeof expect !== "object" || expect === null || Array.isArray(expect))
      throw wrong(`${at}/expect`, "an object");
    for (const k of Object.keys(expect))
      if (!(EXPECTED as readonly string[]).includes(k))
        throw wrong(`${at}/expect/${k}`, `one of ${EXPECTED.join(", ")}`);
    return {
      name: c.name ?? `#${i} ${c.command}`,
      command: c.command,
      inputs: inputs as Record<string, unknown>,
      surface,
      expect: expect as Record<string, unknown>,
    };
  });
}
