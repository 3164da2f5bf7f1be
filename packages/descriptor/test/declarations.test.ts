import type { JsonObject, JsonValue } from "@rukh/json";
import { describe, expect, it } from "vitest";
import {
  cliSpec,
  decodeCliInputs,
  validateCommandDeclarations,
  validateDescriptor,
  validateInputs,
} from "../src/index.js";

// A command declaration — path, aliases, help text and typed inputs — is
// one grammar and one set of rules, whether an extension's descriptor holds
// it or a brand declares a built-in with it: a declaration that is wrong is
// wrong the same way, with the same codes and messages, at its own pointer.

const NAME = { id: "name", type: "string", summary: "A name", positional: 0, required: true };
const valid: JsonObject = {
  path: ["files", "count"],
  aliases: [["wc"]],
  summary: "Count lines",
  description: "Counts the lines\nof each file.",
  inputs: [NAME, { id: "mode", type: "enum", values: ["fast", "exact"], summary: "Mode" }],
};

/** `valid` with `edit` applied to a copy. */
const edited = (edit: (d: Record<string, JsonValue>) => void): JsonObject => {
  const d = structuredClone(valid);
  edit(d);
  return d;
};

/** `d` as the one command of an extension's descriptor. */
const inDescriptor = (d: JsonObject): JsonObject => ({
  format: "rukh.extension/2",
  id: "acme.files",
  version: "1.0.0",
  publisher: "acme",
  commands: [
    { id: "count", ...d, execute: { mapping: "managed", program: "bin/x.mjs", runtime: "node" } },
  ],
});

const found = (r: { ok: boolean; issues?: readonly { path: string; code: string }[] }) =>
  r.ok ? [] : (r.issues ?? []).map((i) => [i.path, i.code]);

/** Wrong declarations, each with the pointer (inside the declaration) and code it is reported with. */
const WRONG: [string, (d: Record<string, JsonValue>) => void, string, string][] = [
  ["no summary", (d) => delete d.summary, "/summary", "missing_field"],
  ["a blank summary", (d) => (d.summary = " "), "/summary", "invalid_value"],
  ["a summary that breaks a line", (d) => (d.summary = "a\nb"), "/summary", "line_break"],
  [
    "a hidden character",
    (d) => (d.description = "ok\u200b"),
    "/description",
    "invisible_character",
  ],
  ["an empty path", (d) => (d.path = []), "/path", "invalid_value"],
  ["a path word in capitals", (d) => (d.path = ["Files"]), "/path/0", "invalid_value"],
  ["an alias word in capitals", (d) => (d.aliases = [["WC"]]), "/aliases/0/0", "invalid_value"],
  [
    "a reserved flag",
    (d) => (d.inputs = [{ id: "json", type: "boolean", summary: "x" }]),
    "/inputs/0/flag",
    "reserved_flag",
  ],
  [
    "a reserved short flag",
    (d) => (d.inputs = [{ id: "x", type: "boolean", summary: "x", short: "h" }]),
    "/inputs/0/short",
    "reserved_flag",
  ],
  [
    "an input id twice",
    (d) => (d.inputs = [NAME, { ...NAME, positional: 1 }]),
    "/inputs/1/id",
    "duplicate_id",
  ],
  [
    "a positional gap",
    (d) => (d.inputs = [{ ...NAME, positional: 1 }]),
    "/inputs",
    "positional_conflict",
  ],
  [
    "a constraint of another type",
    (d) => (d.inputs = [{ ...NAME, minimum: 1 }]),
    "/inputs/0/minimum",
    "invalid_value",
  ],
  [
    "a required input with a default",
    (d) => (d.inputs = [{ ...NAME, default: "x" }]),
    "/inputs/0/default",
    "required_with_default",
  ],
  [
    "an unknown input field",
    (d) => (d.inputs = [{ ...NAME, sumary: "x" }]),
    "/inputs/0/sumary",
    "unknown_field",
  ],
];

describe("validateCommandDeclarations", () => {
  it("reads a declaration as validateDescriptor reads the same command", () => {
    const alone = validateCommandDeclarations([valid]);
    const described = validateDescriptor(inDescriptor(valid));
    expect(alone.ok && described.ok).toBe(true);
    if (!alone.ok || !described.ok) return;
    const { id, identity, execute, requests, ...declaration } = described.value.commands[0]!;
    expect(alone.value).toEqual([declaration]);
  });

  it.each(WRONG)("reports %s as an extension's command is reported", (_, edit, at, code) => {
    const d = edited(edit);
    const alone = validateCommandDeclarations([d]);
    const described = validateDescriptor(inDescriptor(d));
    expect(found(alone)).toContainEqual([`/0${at}`, code]);
    // Same codes and messages, each at the declaration's own pointer.
    const rebased = (described.ok ? [] : described.issues).map((i) => ({
      ...i,
      path: i.path.replace(/^\/commands\/0/, "/0"),
    }));
    expect(alone.ok ? [] : alone.issues).toEqual(rebased);
  });

  it.each<[string, JsonValue, string[][]]>([
    ["no list", { path: ["x"], summary: "x" }, [["", "invalid_type"]]],
    ["a declaration that is no object", ["x"], [["/0", "invalid_type"]]],
    [
      "what only an extension command declares",
      [{ path: ["x"], summary: "x", id: "x", execute: {} }],
      [
        ["/0/id", "unknown_field"],
        ["/0/execute", "unknown_field"],
      ],
    ],
    [
      "one route twice",
      [
        { path: ["x"], summary: "x" },
        { path: ["y"], aliases: [["x"]], summary: "y" },
      ],
      [["/1/aliases/0", "route_conflict"]],
    ],
    [
      "a route that is also a group",
      [
        { path: ["x"], summary: "x" },
        { path: ["x", "y"], summary: "y" },
      ],
      [["", "route_conflict"]],
    ],
    ["an empty list", [], []],
  ])("refuses %s", (_, value, expected) => {
    expect(found(validateCommandDeclarations(value))).toEqual(expected);
  });

  it("names the declaration that took a route first", () => {
    const r = validateCommandDeclarations([
      { path: ["x"], summary: "x" },
      { path: ["x"], summary: "again" },
    ]);
    expect(r.ok ? [] : r.issues.map((i) => i.message)).toEqual([
      'route "x" is already taken by declaration /0; expected each route once',
    ]);
  });

  it("gives a declaration the command line of an extension command, without an identity", () => {
    const r = validateCommandDeclarations([valid]);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const declared = cliSpec(r.value[0]!);
    const described = validateDescriptor(inDescriptor(valid));
    if (!described.ok) throw new Error(JSON.stringify(described.issues));
    const { identity, ...extension } = cliSpec(described.value.commands[0]!);
    expect(identity).toBe("acme.files/count");
    expect(declared).toEqual(extension);
    expect(declared.passthrough).toBe(false);
    expect(declared.positionals.map((p) => p.placeholder)).toEqual(["<name>"]);
    expect(declared.flags.map((f) => f.placeholder)).toEqual(["<fast|exact>"]);
  });

  it("decodes and validates a declaration's inputs with the functions an extension command's use", () => {
    const r = validateCommandDeclarations([valid]);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const d = r.value[0]!;
    const decoded = decodeCliInputs(d, new Map([["name", ["Ada"]]]));
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues));
    const checked = validateInputs(d, decoded.value);
    expect(checked.ok && checked.value.values).toEqual({ name: "Ada" });
    const missing = validateInputs(d, { values: new Map() });
    expect(found(missing)).toEqual([["/name", "missing_required"]]);
  });
});
