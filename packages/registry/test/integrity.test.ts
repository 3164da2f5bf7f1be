// Only an integrity that checks something is used: sha256, sha384 or
// sha512 with a digest of its length, as npm's parser reads it.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { strongIntegrity } from "../src/_integrity.js";
import { integrityOf, RegistryError, resolutionOf } from "../src/index.js";

const bytes = Buffer.from("a tarball");
const sri = (algorithm: string) =>
  `${algorithm}-${createHash(algorithm).update(bytes).digest("base64")}`;

describe("strongIntegrity", () => {
  it.each([
    ["sha512", sri("sha512"), sri("sha512")],
    ["sha384", sri("sha384"), sri("sha384")],
    ["sha256", sri("sha256"), sri("sha256")],
    ["sha1 beside sha512: the sha512", `${sri("sha1")} ${sri("sha512")}`, sri("sha512")],
    ["two strong ones", `${sri("sha256")} ${sri("sha512")}`, `${sri("sha256")} ${sri("sha512")}`],
  ])("%s is kept", (_what, integrity, kept) => {
    expect(strongIntegrity(integrity)).toBe(kept);
  });

  it.each([
    ["an empty sha512", "sha512-"],
    ["a sha512 digest of 32 bytes", `sha512-${Buffer.alloc(32).toString("base64")}`],
    ["a sha256 digest of 64 bytes", `sha256-${Buffer.alloc(64).toString("base64")}`],
    ["sha1 alone", sri("sha1")],
    ["md5", sri("md5")],
    ["no algorithm", createHash("sha512").update(bytes).digest("base64")],
    ["a digest that is not base64", `sha512-${"!".repeat(88)}`],
    ["a digest not in canonical base64", `${sri("sha256").slice(0, -2)}B=`],
    ["garbage", "not an integrity"],
    ["nothing", ""],
    ["not text", 42],
    ["too long", `${sri("sha512")} ${"x".repeat(5000)}`],
  ])("%s is none", (_what, integrity) => {
    expect(strongIntegrity(integrity)).toBeUndefined();
  });
});

describe("resolutionOf", () => {
  const REG = "http://registry.test/";
  const doc = (dist: Record<string, string>) => ({
    name: "@jane/hello",
    "dist-tags": { latest: "1.0.0" },
    versions: { "1.0.0": { version: "1.0.0", dist: { tarball: `${REG}t.tgz`, ...dist } } },
  });
  const refusal = (dist: Record<string, string>) => {
    try {
      resolutionOf(doc(dist) as never, "@jane/hello", "1.0.0", REG);
    } catch (e) {
      expect(e).toBeInstanceOf(RegistryError);
      return [(e as RegistryError).code, (e as RegistryError).message];
    }
    return undefined;
  };

  it("records the strong hashes it checks", () => {
    const r = resolutionOf(
      doc({ integrity: `${sri("sha1")} ${sri("sha512")}` }) as never,
      "@jane/hello",
      "1.0.0",
      REG,
    );
    expect(r.integrity).toBe(sri("sha512"));
    expect(integrityOf(doc({ integrity: "sha512-" }).versions["1.0.0"] as never)).toBeUndefined();
  });

  it.each([
    [{ integrity: "sha512-" }, 'with integrity "sha512-"'],
    [{ shasum: createHash("sha1").update(bytes).digest("hex") }, "with only a SHA-1 shasum"],
    [{}, "without an integrity"],
    [{ integrity: "sha512-\n@evil/row" }, 'with integrity "sha512-\\n@evil/row"'],
  ])("%j is registry_invalid naming the package, version and registry", (dist, said) => {
    expect(refusal(dist)).toEqual([
      "registry_invalid",
      `registry ${REG} lists @jane/hello@1.0.0 ${said}; expected a sha256, sha384 or sha512 integrity (its digest 32, 48 or 64 bytes), as npm publishes`,
    ]);
  });

  it("refuses a tarball address that is not http(s)", () => {
    const d = doc({ integrity: sri("sha512") });
    (d.versions["1.0.0"].dist as Record<string, string>).tarball = "file:///etc/passwd";
    expect(() => resolutionOf(d as never, "@jane/hello", "1.0.0", REG)).toThrow(
      `registry ${REG} lists @jane/hello@1.0.0 without an http(s) tarball address`,
    );
  });
});
