import { describe, expect, it } from "vitest";
import { brandOf } from "../src/_brand.js";

describe("brandOf", () => {
  it.each([
    [{ bin: { rukh: "./bin/rukh" } }, { name: "rukh", bin: "./bin/rukh" }],
    [{ bin: { zeta: "./bin/acme" } }, { name: "zeta", bin: "./bin/acme" }],
  ])("reads %j", (manifest, value) => {
    expect(brandOf(manifest)).toEqual({ ok: true, value });
  });

  it.each([
    [{}, "/bin: expected an object naming one command"],
    [{ bin: "./bin/acme" }, "/bin: expected an object naming one command"],
    [{ bin: {} }, "/bin: names 0 commands; expected exactly one, the brand"],
    [{ bin: { a: "./a", b: "./b" } }, "/bin: names 2 commands; expected exactly one, the brand"],
    [{ bin: { acme: "/usr/bin/acme" } }, "/bin/acme: expected a path inside the package"],
    [{ bin: { acme: "../acme" } }, "/bin/acme: expected a path inside the package"],
    [{ bin: { acme: 1 } }, "/bin/acme: expected a path inside the package"],
  ])("refuses %j", (manifest, issue) => {
    const r = brandOf(manifest);
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.issues[0]).toContain(issue);
  });
});
