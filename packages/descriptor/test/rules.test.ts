import { describe, expect, it } from "vitest";
import { executionRules, inputNameRules, positionalRules, routeRules } from "../src/_rules.js";
import type { CommandSpec, GroupSpec, InputSpec } from "../src/index.js";

// The cross-field rules are pure: each table builds an already-read command
// (or set of commands) and lists the issues expected, as [path, code].

const input = (id: string, cli: InputSpec["cli"], type: "string" | "list" = "string"): InputSpec =>
  (type === "list"
    ? { id, summary: id, required: false, cli, type, items: { type: "string" }, maxItems: 3 }
    : { id, summary: id, required: false, cli, type }) as InputSpec;

const command = (over: Partial<CommandSpec> = {}): CommandSpec => ({
  id: "run",
  identity: "acme.x/run",
  path: ["run"],
  aliases: [],
  summary: "Run",
  inputs: [],
  execute: { mapping: "managed", program: "bin/run.js", runtime: "node", lifetime: "foreground" },
  requests: { actions: [], resources: [] },
  ...over,
});

const passthrough = {
  mapping: "passthrough",
  program: "bin/x",
  runtime: "native",
  lifetime: "foreground",
} as const;
const text = { kind: "text" } as const;
const found = (issues: readonly { path: string; code: string }[]) =>
  issues.map((i) => [i.path, i.code]);

describe("executionRules", () => {
  it.each<[string, Partial<CommandSpec>, string[][]]>([
    ["a plain managed command", {}, []],
    ["a passthrough command without inputs", { execute: passthrough }, []],
    [
      "a passthrough command with inputs",
      { execute: passthrough, inputs: [input("a", { flag: "a" })] },
      [["/c/inputs", "invalid_value"]],
    ],
    [
      "a passthrough command with a result",
      { execute: { ...passthrough, result: text } },
      [["/c/execute/result", "invalid_value"]],
    ],
    [
      "a machine-eligible passthrough command",
      {
        execute: passthrough,
        machine: { eligible: true, interaction: "none", requiredFeatures: [] },
      },
      [
        ["/c/machine/eligible", "machine_requires_managed"],
        ["/c/machine/eligible", "machine_requires_result"],
      ],
    ],
    [
      "a machine-eligible managed command without a result",
      { machine: { eligible: true, interaction: "none", requiredFeatures: [] } },
      [["/c/machine/eligible", "machine_requires_result"]],
    ],
    [
      "a machine-eligible managed command with a result",
      {
        execute: { ...command().execute, result: text },
        machine: { eligible: true, interaction: "none", requiredFeatures: [] },
      },
      [],
    ],
    [
      "a command that is not machine-eligible",
      { machine: { eligible: false, interaction: "none", requiredFeatures: [] } },
      [],
    ],
  ])("%s", (_, over, expected) => {
    expect(found(executionRules("/c", command(over)))).toEqual(expected);
  });
});

describe("inputNameRules", () => {
  it.each<[string, InputSpec[], string[][]]>([
    ["distinct inputs", [input("a", { flag: "a", short: "a" }), input("b", { flag: "b" })], []],
    [
      "a repeated id",
      [input("a", { flag: "a" }), input("a", { flag: "b" })],
      [["/c/inputs/1/id", "duplicate_id"]],
    ],
    ["a reserved flag", [input("a", { flag: "help" })], [["/c/inputs/0/flag", "reserved_flag"]]],
    [
      "a reserved short flag",
      [input("a", { flag: "a", short: "V" })],
      [["/c/inputs/0/short", "reserved_flag"]],
    ],
    [
      "a repeated flag",
      [input("a", { flag: "x" }), input("b", { flag: "x" })],
      [["/c/inputs/1/flag", "flag_conflict"]],
    ],
    [
      "a repeated short flag",
      [input("a", { flag: "a", short: "q" }), input("b", { flag: "b", short: "q" })],
      [["/c/inputs/1/short", "flag_conflict"]],
    ],
  ])("%s", (_, inputs, expected) => {
    expect(found(inputNameRules("/c", command({ inputs })))).toEqual(expected);
  });

  it("names the input that already took a flag", () => {
    const [issue] = inputNameRules(
      "/c",
      command({ inputs: [input("a", { flag: "x" }), input("b", { flag: "x" })] }),
    );
    expect(issue?.message).toBe("--x is already used by input 0; expected unique flags");
  });
});

describe("positionalRules", () => {
  it.each<[string, InputSpec[], string[][]]>([
    ["no positionals", [input("a", { flag: "a" })], []],
    [
      "dense positionals in any order",
      [input("a", { positional: 1 }), input("b", { positional: 0 })],
      [],
    ],
    ["a gap", [input("a", { positional: 1 })], [["/c/inputs", "positional_conflict"]]],
    [
      "an index used twice",
      [input("a", { positional: 0 }), input("b", { positional: 0 })],
      [["/c/inputs", "positional_conflict"]],
    ],
    [
      "a list positional last",
      [input("a", { positional: 0 }), input("b", { positional: 1 }, "list")],
      [],
    ],
    [
      "a list positional before another",
      [input("a", { positional: 0 }, "list"), input("b", { positional: 1 })],
      [["/c/inputs/0/positional", "positional_conflict"]],
    ],
  ])("%s", (_, inputs, expected) => {
    expect(found(positionalRules("/c", command({ inputs })))).toEqual(expected);
  });
});

describe("routeRules", () => {
  const cmd = (id: string, path: string, aliases: string[] = []) =>
    command({ id, path: path.split(" "), aliases: aliases.map((a) => a.split(" ")) });
  const group = (path: string): GroupSpec => ({ path: path.split(" "), summary: path });

  it.each<[string, CommandSpec[], GroupSpec[], string[][]]>([
    [
      "distinct routes and a group holding them",
      [cmd("a", "files count"), cmd("b", "files list")],
      [group("files")],
      [],
    ],
    [
      "a repeated command id",
      [cmd("a", "one"), cmd("a", "two")],
      [],
      [["/commands/1/id", "duplicate_id"]],
    ],
    [
      "a path taken twice",
      [cmd("a", "one"), cmd("b", "one")],
      [],
      [["/commands/1/path", "route_conflict"]],
    ],
    [
      "an alias taking a path",
      [cmd("a", "one"), cmd("b", "two", ["one"])],
      [],
      [["/commands/1/aliases/0", "route_conflict"]],
    ],
    [
      "a route that is also a group",
      [cmd("a", "files"), cmd("b", "files list")],
      [],
      [["/commands", "route_conflict"]],
    ],
    [
      "a group that is a command",
      [cmd("a", "files"), cmd("b", "other")],
      [group("files")],
      [["/groups/0/path", "route_conflict"]],
    ],
    [
      "a group holding nothing",
      [cmd("a", "one")],
      [group("net")],
      [["/groups/0/path", "invalid_value"]],
    ],
    [
      "a group declared twice",
      [cmd("a", "net get")],
      [group("net"), group("net")],
      [["/groups/1/path", "duplicate_id"]],
    ],
  ])("%s", (_, commands, groups, expected) => {
    expect(found(routeRules(commands, groups))).toEqual(expected);
  });
});
