import { describe, expect, it } from "vitest";
import { isExtensionId, isIdentity, OwnerConfigChecker } from "../../src/config/_config-checker.js";
import { validateOwnerConfig } from "../../src/config.js";
import { ownerConfig } from "../_helpers.js";

// The owner configuration reports an unknown member as a descriptor reports
// an unknown field: with the member a typo meant, when there is one.
describe("unknown members of an owner configuration", () => {
  it.each([
    ["a typo of a top-level member", { presest: {} }, "/presest", "did you mean presets? "],
    [
      "a typo of a journal member",
      { journal: { maxAgeDay: 7 } },
      "/journal/maxAgeDay",
      "did you mean maxAgeDays? ",
    ],
    [
      "a typo of an exposure member",
      { exposure: { extension: [] } },
      "/exposure/extension",
      "did you mean extensions? ",
    ],
    ["a member far from any known one", { colour: "red" }, "/colour", ""],
  ])("%s", (_, over, path, suggestion) => {
    const r = validateOwnerConfig(ownerConfig(over) as never);
    expect(r.ok ? [] : r.issues).toContainEqual({
      path,
      code: "unknown_member",
      message: expect.stringMatching(
        new RegExp(
          `^unknown member "${path.split("/").at(-1)}"; ${suggestion.replace("?", "\\?")}expected one of `,
        ),
      ),
    });
  });
});

describe("OwnerConfigChecker.object", () => {
  it.each([
    ["a complete object", { a: 1, b: 2 }, []],
    ["a missing required member", { b: 2 }, [["/o/a", "missing_member", '"a" is required']]],
    [
      "an unknown member near a known one",
      { a: 1, bb: 2 },
      [["/o/bb", "unknown_member", 'unknown member "bb"; did you mean b? expected one of a, b']],
    ],
    [
      "an unknown member near none",
      { a: 1, zzz: 2 },
      [["/o/zzz", "unknown_member", 'unknown member "zzz"; expected one of a, b']],
    ],
  ])("reports %s", (_, value, expected) => {
    const c = new OwnerConfigChecker();
    c.object("/o", value, ["a"], ["b"]);
    expect(c.issues.map((i) => [i.path, i.code, i.message])).toEqual(expected);
  });
});

describe("id spellings shared with the descriptor", () => {
  it.each([
    ["acme.files/count", true],
    ["acme.files/count_lines", true],
    ["acme/Count", false],
    ["/count", false],
    ["acme.files", false],
  ])("isIdentity(%j) is %s", (s, expected) => {
    expect(isIdentity(s)).toBe(expected);
  });

  it.each([
    ["acme.files", true],
    ["acme", true],
    ["Acme", false],
    ["acme..files", false],
  ])("isExtensionId(%j) is %s", (s, expected) => {
    expect(isExtensionId(s)).toBe(expected);
  });
});
