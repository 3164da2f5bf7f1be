import { describe, expect, it } from "vitest";
import {
  outdatedOf,
  type Packument,
  pickVersion,
  RegistryError,
  registrySpec,
} from "../src/index.js";

const REG = "http://registry.test/";
const doc = (latest: string, versions: string[], tags: Record<string, string> = {}): Packument => ({
  name: "@jane/hello",
  "dist-tags": { latest, ...tags },
  versions: Object.fromEntries(
    versions.map((v) => [
      v,
      { version: v, dist: { tarball: `${REG}t/${v}.tgz`, integrity: "sha512-x" } },
    ]),
  ),
});

describe("registrySpec", () => {
  it.each([
    ["@jane/hello", { name: "@jane/hello", kind: "tag", wanted: "latest" }],
    ["@jane/hello@^1.2", { name: "@jane/hello", kind: "range", wanted: "^1.2" }],
    ["@jane/hello@1.2.3", { name: "@jane/hello", kind: "version", wanted: "1.2.3" }],
    ["@jane/hello@next", { name: "@jane/hello", kind: "tag", wanted: "next" }],
    ["hello", { name: "hello", kind: "tag", wanted: "latest" }],
  ])("%s is a registry spec", (text, want) => {
    expect(registrySpec(text)).toMatchObject(want);
  });
  it.each([
    "./hello",
    "/abs/hello",
    "hello.tgz",
    "github:jane/hello",
    "https://example.test/h.tgz",
    "",
  ])("%s is not", (text) => {
    expect(registrySpec(text)).toBeUndefined();
  });
});

describe("pickVersion and outdatedOf", () => {
  const d = doc("1.2.0", ["1.0.0", "1.1.0", "1.2.0", "2.0.0", "2.1.0-beta.1"], {
    next: "2.1.0-beta.1",
  });
  it.each([
    ["a tag", { kind: "tag", wanted: "latest" }, "1.2.0"],
    ["another tag", { kind: "tag", wanted: "next" }, "2.1.0-beta.1"],
    ["a range", { kind: "range", wanted: "^1.0" }, "1.2.0"],
    ["a range holding latest: latest", { kind: "range", wanted: ">=1" }, "1.2.0"],
    ["a range above latest", { kind: "range", wanted: "^2" }, "2.0.0"],
    ["one version", { kind: "version", wanted: "1.1.0" }, "1.1.0"],
  ] as const)("%s picks as npm does", (_what, spec, version) => {
    expect(pickVersion(d, { name: "@jane/hello", ...spec }, REG)).toBe(version);
  });

  it.each([
    [
      "installed by tag follows the tag",
      { kind: "tag", wanted: "latest" },
      "1.0.0",
      { wanted: "1.2.0", latest: "1.2.0" },
    ],
    [
      "installed by range stays in it",
      { kind: "range", wanted: "~1.1.0" },
      "1.1.0",
      { wanted: "1.1.0", latest: "1.2.0" },
    ],
    [
      "one version follows its major",
      { kind: "version", wanted: "1.0.0" },
      "1.0.0",
      { wanted: "1.2.0", latest: "1.2.0" },
    ],
    [
      "a major above latest",
      { kind: "version", wanted: "2.0.0" },
      "2.0.0",
      { wanted: "2.0.0", latest: "1.2.0" },
    ],
  ] as const)("%s", (_what, spec, current, want) => {
    expect(outdatedOf(d, { name: "@jane/hello", ...spec }, current, REG)).toEqual({
      current,
      ...want,
    });
  });

  it("a latest moved back is wanted as it is: lower than installed", () => {
    const back = doc("1.0.0", ["1.0.0", "1.1.0"]);
    expect(
      outdatedOf(back, { name: "@jane/hello", kind: "tag", wanted: "latest" }, "1.1.0", REG).wanted,
    ).toBe("1.0.0");
  });

  it.each([
    ["no such version", { kind: "version", wanted: "9.9.9" }],
    ["no such tag", { kind: "tag", wanted: "canary" }],
    ["an empty range", { kind: "range", wanted: "^7" }],
  ] as const)("%s is no_matching_version naming the registry", (_what, spec) => {
    let error: unknown;
    try {
      pickVersion(d, { name: "@jane/hello", ...spec }, REG);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).code).toBe("no_matching_version");
    expect((error as RegistryError).message).toContain(REG);
  });
});

// Only a version the registry lists, written as valid semver, is used:
// a dist-tag naming anything else would otherwise reach a table or a fetch.
describe("a version or dist-tag from a registry", () => {
  const d = doc("1.2.0", ["1.0.0", "1.1.0", "1.2.0"]);
  const tagged = (latest: unknown): Packument => ({
    ...d,
    "dist-tags": { latest } as Record<string, string>,
  });
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return [(e as RegistryError).code, (e as RegistryError).message];
    }
    return undefined;
  };
  it.each([
    ["a line break and a forged row", "1.2.0\nacme.forged  x  0.0.1  9.9.9"],
    ["a carriage return", "1.2.0\r"],
    ["a line separator", "1.2.0\u2028"],
    ["a version it does not list", "9.9.9"],
    ["a range", "^1.0.0"],
    ["a v before it", "v1.2.0"],
    ["a space before it", " 1.2.0"],
    ["a number", 120],
  ])("%s as latest is registry_invalid, quoted on one line", (_what, latest) => {
    const said = [
      "registry_invalid",
      `registry ${REG} names as the latest version of @jane/hello ${JSON.stringify(typeof latest === "string" ? latest : String(latest))}, which is not one of its versions`,
    ];
    const spec = { name: "@jane/hello", kind: "tag", wanted: "latest" } as const;
    expect(code(() => outdatedOf(tagged(latest), spec, "1.0.0", REG))).toEqual(said);
    expect(code(() => pickVersion(tagged(latest), spec, REG))).toEqual(said);
    // A range never follows it: it picks from the versions listed.
    expect(
      pickVersion(tagged(latest), { name: "@jane/hello", kind: "range", wanted: "^1.0.0" }, REG),
    ).toBe("1.2.0");
  });

  it("a version whose document says another version is not used", () => {
    const lying: Packument = {
      ...d,
      versions: { ...d.versions, "1.2.0": { ...d.versions["1.2.0"]!, version: "1.2.0\nrow" } },
    };
    expect(
      code(() =>
        pickVersion(lying, { name: "@jane/hello", kind: "version", wanted: "1.2.0" }, REG),
      ),
    ).toEqual([
      "registry_invalid",
      `registry ${REG} offers for @jane/hello "1.2.0" the version "1.2.0\\nrow", which is not one of its versions`,
    ]);
  });

  it("a version with build metadata is used as it is written", () => {
    const built = doc("1.2.0+b.7", ["1.2.0+b.7"]);
    expect(pickVersion(built, { name: "@jane/hello", kind: "tag", wanted: "latest" }, REG)).toBe(
      "1.2.0+b.7",
    );
  });

  it("no_matching_version quotes the dist-tags it lists", () => {
    const odd: Packument = { ...d, "dist-tags": { latest: "1.2.0", "x\ny": "1.1.0" } };
    expect(
      code(() => pickVersion(odd, { name: "@jane/hello", kind: "tag", wanted: "canary" }, REG)),
    ).toEqual([
      "no_matching_version",
      `registry ${REG} has no version of @jane/hello matching the dist-tag "canary" (dist-tags: "latest", "x\\ny")`,
    ]);
  });
});
