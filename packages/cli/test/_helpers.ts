import { fileURLToPath } from "node:url";
import {
  fixtureOwnerConfig,
  fixturePreset,
  fixtureState,
  tempDir as kitTempDir,
  machine as machineBlock,
  managed,
  str,
} from "@rukh/testkit";
import { startCli } from "@rukh/testkit/cli";
import { type FixturePrograms, makeExtension } from "@rukh/testkit/extension";

export const BIN = fileURLToPath(new URL("./fixtures/acme.mjs", import.meta.url));

export function tempDir(prefix = "rukh-cli-"): string {
  return kitTempDir(prefix);
}

const machine = machineBlock();

/** Every input type, as flags and positionals. */
const ECHO_INPUTS = [
  str("label", { short: "l" }),
  { id: "limit", type: "integer", minimum: -10, maximum: 1000, summary: "A limit", default: 10 },
  { id: "big", type: "decimal", summary: "An exact decimal" },
  { id: "ratio", type: "number", minimum: 0, maximum: 1, summary: "A ratio" },
  { id: "verbose", type: "boolean", summary: "Say more", short: "v" },
  { id: "mode", type: "enum", values: ["fast", "slow"], summary: "The mode", default: "fast" },
  {
    id: "tag",
    type: "list",
    items: { type: "string", maxLength: 32 },
    maxItems: 8,
    summary: "Tags",
  },
  { id: "port", type: "integer", minimum: 1, maximum: 65535, summary: "A port" },
];

export const TOOLS = {
  format: "rukh.extension/2",
  id: "fx.tools",
  version: "1.0.0",
  publisher: "acme",
  groups: [{ path: ["files"], summary: "Work with files" }],
  commands: [
    {
      id: "hello",
      path: ["hello"],
      summary: "Say hello",
      inputs: [str("name", { required: true, positional: 0 })],
      execute: managed(),
      machine,
    },
    {
      id: "echo",
      path: ["echo"],
      summary: "Echo the typed inputs",
      inputs: ECHO_INPUTS,
      execute: managed(),
      machine,
    },
    {
      id: "count",
      path: ["files", "count"],
      aliases: [["wc"]],
      summary: "Count the given paths",
      inputs: [
        {
          id: "paths",
          type: "list",
          items: { type: "string", maxLength: 256 },
          minItems: 1,
          maxItems: 16,
          summary: "Paths to count",
          required: true,
          positional: 0,
        },
        {
          id: "format",
          type: "enum",
          values: ["short", "long"],
          summary: "Output format",
          required: true,
        },
      ],
      execute: managed({
        kind: "structured",
        schema: {
          type: "object",
          properties: {
            total: { type: "integer", minimum: 0, maximum: 100 },
            inputs: {
              type: "object",
              properties: {
                paths: { type: "array", items: { type: "string", maxLength: 256 }, maxItems: 16 },
                format: { type: "string", maxLength: 16 },
              },
              required: ["paths", "format"],
              additionalProperties: false,
            },
          },
          required: ["total", "inputs"],
          additionalProperties: false,
        },
      }),
      machine,
    },
    {
      id: "fail",
      path: ["fail"],
      summary: "Always fails",
      inputs: [],
      execute: managed(),
      machine,
    },
    {
      id: "crash",
      path: ["crash"],
      summary: "Exits without a completion",
      inputs: [],
      execute: managed(),
      machine,
    },
    {
      id: "greedy",
      path: ["greedy"],
      summary: "Asks for more than the preset allows",
      inputs: [],
      execute: managed(),
      requests: { actions: ["net.connect"], resources: [] },
      machine,
    },
    {
      id: "slow",
      path: ["slow"],
      summary: "Waits, cancellably",
      inputs: [
        {
          id: "wait_ms",
          type: "integer",
          minimum: 0,
          maximum: 60000,
          default: 0,
          summary: "How long",
        },
      ],
      execute: managed(),
      machine,
    },
    {
      id: "stubborn",
      path: ["stubborn"],
      summary: "Ignores cancellation",
      inputs: [],
      execute: managed(),
      machine,
    },
    {
      id: "pt",
      path: ["kit", "pt"],
      summary: "A passthrough program",
      inputs: [],
      execute: { mapping: "passthrough", program: "bin/passthrough.mjs", runtime: "node" },
    },
  ],
};

const preset = (over: object = {}) =>
  fixturePreset({ commands: ["fx.tools/*"], deadlineMs: 30_000, ...over });

export function ownerConfig(): Record<string, unknown> {
  return fixtureOwnerConfig({
    endpointNamespace: "acme-test",
    exposure: { extensions: ["fx.tools"] },
    presets: { default: preset(), short: preset({ deadlineMs: 1_500 }) },
  });
}

/** The CLI suites' fixture programs: the commands and a passthrough. */
const PROGRAMS: FixturePrograms = {
  folder: new URL("./fixtures/", import.meta.url),
  passthrough: true,
};

/** `count` extensions' worth of simple commands, 100 per extension, in groups `g<n>`. */
export function bulkDescriptors(count: number): object[] {
  const out: object[] = [];
  for (let e = 0; e * 100 < count; e++)
    out.push({
      format: "rukh.extension/2",
      id: `fx.bulk${e}`,
      version: "1.0.0",
      publisher: "acme",
      groups: [{ path: [`g${e}`], summary: `Bulk group ${e}` }],
      commands: Array.from({ length: Math.min(100, count - e * 100) }, (_, i) => ({
        id: `c${i}`,
        path: [`g${e}`, `c${i}`],
        summary: `Bulk command ${i}`,
        inputs: [
          str("name", { required: true }),
          { id: "count", type: "integer", minimum: 0, maximum: 9, summary: "How many", default: 1 },
        ],
        execute: managed(),
        machine,
      })),
    });
  return out;
}

/** A fresh state directory with the owner configuration and the given extensions installed. */
export async function makeHome(descriptors: readonly object[] = [TOOLS]): Promise<string> {
  const { root } = await fixtureState({
    prefix: "rukh-cli-",
    config: ownerConfig(),
    packages: async (work) => {
      const dirs = [];
      for (const d of descriptors) dirs.push(await makeExtension(work, d, PROGRAMS));
      return dirs;
    },
    install: "together",
  });
  return root;
}

/**
 * Runs the test binary with `ACME_HOME=home` and `env` added, stdin from
 * /dev/null; the process is there to signal meanwhile.
 */
export function acme(
  home: string,
  args: readonly string[],
  env: Record<string, string> = {},
): ReturnType<typeof startCli> {
  return startCli({
    via: [process.execPath],
    bin: BIN,
    args,
    stateDir: home,
    stateVariable: "ACME_HOME",
    env,
  });
}

/** Every runnable line (`  $ acme …`) in a text, as argument lists. */
export function runnableLines(text: string): string[][] {
  return text
    .split("\n")
    .filter((l) => l.startsWith("  $ acme"))
    .map((l) => l.slice(4).split(" ").slice(1));
}
