import { chownSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir, tempDir } from "@rukh/testkit";
import { afterAll, expect, it } from "vitest";
import { checkTrustedProgram, locateTrustedProgram } from "../../src/process/_trusted.js";

const work = tempDir("rukh-trusted-");
afterAll(() => removeDir(work));
const uid = process.getuid?.() ?? 0;
// A private, non-writable chain below the temporary directory is not enough:
// the temporary directory itself is world-writable, so nothing under it is trusted.
const prog = (dir: string, mode = 0o755) => {
  mkdirSync(join(work, dir), { recursive: true, mode: 0o755 });
  const p = join(work, dir, "bwrap");
  writeFileSync(p, "#!/bin/sh\n", { mode });
  return p;
};

it.each([
  ["a relative path", () => "bin/bwrap", /is not an absolute path/],
  ["a missing file", () => join(work, "nope"), /does not exist/],
  ["a directory", () => work, /is not a regular file/],
  ["a file that is not executable", () => prog("noexec", 0o644), /is not executable/],
  [
    "a file under a world-writable directory",
    () => prog("under-tmp"),
    /is writable by group or others/,
  ],
])("refuses %s", (_n, path, reason) => {
  const r = checkTrustedProgram(path(), uid);
  expect(r.ok).toBe(false);
  if (!r.ok) expect(r.reason).toMatch(reason);
});

it.runIf(uid === 0)("refuses a program another user owns", () => {
  const p = prog("other");
  chownSync(p, 65_534, 65_534);
  const r = checkTrustedProgram(p, uid);
  expect(r).toEqual({
    ok: false,
    reason: `${p} is owned by uid 65534, not by root or the invoking user (uid 0)`,
  });
});

it("accepts a system program and returns its real path", () => {
  const r = locateTrustedProgram(["/nonexistent/true", "/bin/true", "/usr/bin/true"], uid, "true");
  expect(r.ok && r.path).toMatch(/^\/(usr\/)?bin\/true$/);
});

it("names every place it looked when none exists", () => {
  expect(locateTrustedProgram(["/no/a", "/no/b"], uid, "bubblewrap")).toEqual({
    ok: false,
    reason: "bubblewrap is not installed (looked for /no/a, /no/b)",
  });
});
