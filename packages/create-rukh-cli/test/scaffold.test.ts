import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const CREATE = fileURLToPath(new URL("../bin/create-rukh-cli.js", import.meta.url));

import { RUKH_PACKAGES } from "../src/_scaffold.js";
import { scaffold } from "../src/index.js";

const temp = mkdtempSync(join(tmpdir(), "create-rukh-cli-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("scaffold", () => {
  it("writes a branded CLI: its own name, binary and state directory", () => {
    const dir = join(temp, "unit");
    const files = scaffold({ name: "acme", dir });
    expect(files).toContain("bin/acme");
    expect(statSync(join(dir, "bin/acme")).mode & 0o111).not.toBe(0);
    // The sources name no brand: package.json's bin is the one setting.
    for (const f of ["src/main.ts", "src/admin/author/_source.ts", "test/cli.test.ts"])
      expect(readFileSync(join(dir, f), "utf8")).toBe(
        readFileSync(new URL(`../template/${f}`, import.meta.url), "utf8"),
      );
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg.bin).toEqual({ acme: "./bin/acme" });
    expect(Object.keys(pkg.dependencies)).toContain("@rukh/mcp");
    // Its tests start processes: their bound allows a busy machine.
    expect(readFileSync(join(dir, "vitest.config.ts"), "utf8")).toContain("testTimeout: 30_000");
  });

  it.each(["Acme", "1acme", "acme cli", "", "a".repeat(40)])("rejects the name %j", (name) => {
    expect(() => scaffold({ name, dir: join(temp, "bad") })).toThrow(/expected/);
  });

  it("refuses a folder of tarballs that lacks one it needs, naming it", () => {
    const folder = join(temp, "few");
    mkdirSync(folder);
    writeFileSync(join(folder, "rukh-core-0.1.0.tgz"), "");
    expect(() => scaffold({ name: "acme", dir: join(temp, "few-acme"), packages: folder })).toThrow(
      /has no tarball of @rukh\/cli, @rukh\/command-result/,
    );
  });

  it("refuses a non-empty directory", () => {
    const dir = join(temp, "full");
    mkdirSync(dir);
    writeFileSync(join(dir, "keep.txt"), "x");
    expect(() => scaffold({ name: "acme", dir })).toThrow(/not empty/);
    expect(existsSync(join(dir, "package.json"))).toBe(false);
  });

  it("runs from a clone under plain node, as the owner guide shows", () => {
    const folder = join(temp, "all");
    mkdirSync(folder);
    for (const n of RUKH_PACKAGES) writeFileSync(join(folder, `rukh-${n}-0.1.0.tgz`), "");
    const dir = join(temp, "plain");
    const r = spawnSync(process.execPath, [CREATE, "acme", dir, "--packages", folder], {
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    // The brand carries its tarballs and names them relatively: it moves with them.
    expect(pkg.dependencies["@rukh/cli"]).toBe("file:vendor/rukh/rukh-cli-0.1.0.tgz");
    expect(pkg.overrides["@rukh/json"]).toBe("file:vendor/rukh/rukh-json-0.1.0.tgz");
    for (const n of RUKH_PACKAGES)
      expect(existsSync(join(dir, `vendor/rukh/rukh-${n}-0.1.0.tgz`))).toBe(true);
    expect(JSON.stringify(pkg)).not.toContain(folder);
  });

  it("names registry versions, never file: paths, without a folder of tarballs", () => {
    const dir = join(temp, "registry");
    scaffold({ name: "acme", dir, rukhVersion: "^0.1.0" });
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(Object.values(pkg.dependencies).every((v) => v === "^0.1.0")).toBe(true);
    expect(pkg.overrides).toBeUndefined();
    expect(existsSync(join(dir, "vendor"))).toBe(false);
  });
});
