import { chmodSync, chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stateDirMessage, stateDirProblems } from "../../src/index.js";
import { tempDir } from "../_helpers.js";

// The ssh-like check every command line makes before it uses a state
// directory: the cases as a table, on real files.
let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const me = process.geteuid?.() ?? 0;

function state(): string {
  dir = tempDir("rukh-statedir-check-");
  const root = join(dir, "home");
  for (const d of ["journal/live", "cache/docs", "keys", "logs", "tmp"])
    mkdirSync(join(root, d), { recursive: true, mode: 0o700 });
  writeFileSync(join(root, "active"), "x\n", { mode: 0o644 });
  writeFileSync(join(root, "keys", "cursor.key"), "k", { mode: 0o600 });
  // Others may enter it (an older build made it 0755): modes inside count.
  chmodSync(root, 0o755);
  return root;
}

describe("stateDirProblems", () => {
  it("finds nothing in a private state directory, or in one that does not exist yet", () => {
    const root = state();
    expect(stateDirProblems(root)).toEqual([]);
    expect(stateDirProblems(root, { deep: true })).toEqual([]);
    expect(stateDirProblems(join(root, "missing"))).toEqual([]);
  });

  it.each([
    ["the directory itself", "", 0o777, "is writable by group or others (mode 0777)"],
    [
      "a group-writable key",
      "keys/cursor.key",
      0o660,
      "is writable by group or others (mode 0660)",
    ],
    ["the live journal", "journal/live", 0o770, "is writable by group or others (mode 0770)"],
    ["tmp/, even sticky", "tmp", 0o1777, "is writable by group or others (mode 1777)"],
  ])("names %s, with the fix", (_what, rel, mode, problem) => {
    const root = state();
    chmodSync(join(root, rel), mode);
    const [p] = stateDirProblems(root);
    expect(p).toEqual({ path: join(root, rel), problem, fix: `chmod go-w '${join(root, rel)}'` });
    expect(stateDirMessage(root, [p!])).toContain(`fix: $ chmod go-w '${join(root, rel)}'`);
  });

  it("counts no mode inside a directory no one else may enter (0700, as the product makes it)", () => {
    const root = state();
    chmodSync(join(root, "keys", "cursor.key"), 0o666);
    expect(stateDirProblems(root)).toHaveLength(1);
    chmodSync(root, 0o700);
    expect(stateDirProblems(root)).toEqual([]);
    expect(stateDirProblems(root, { deep: true })).toEqual([]);
  });

  it("names a link where the product never makes one, and another user's file", () => {
    const root = state();
    symlinkSync("/etc/passwd", join(root, "logs", "diagnostics.log"));
    expect(stateDirProblems(root)).toEqual([
      {
        path: join(root, "logs", "diagnostics.log"),
        problem: "is a symbolic link; nothing in a state directory is one",
        fix: `rm '${join(root, "logs", "diagnostics.log")}'`,
      },
    ]);
    const key = join(root, "keys", "cursor.key");
    // As root, a file given to another user; as anyone else, the check asked for another user.
    if (me === 0) chownSync(key, 65_534, 65_534);
    const found = stateDirProblems(root, me === 0 ? {} : { uid: me + 1 });
    expect(found.find((p) => p.path === (me === 0 ? key : root))).toMatchObject({
      problem: expect.stringMatching(/^is owned by user \d+, not by you \(\d+\) or root$/),
      fix: expect.stringMatching(/^chown -R \d+ '/),
    });
  });

  it("names a parent others can write (a sticky one such as /tmp is fine); deep finds what the quick check skips", () => {
    const root = state();
    chmodSync(dir, 0o777);
    expect(stateDirProblems(root).map((p) => p.path)).toEqual([dir]);
    chmodSync(dir, 0o1777);
    expect(stateDirProblems(root)).toEqual([]);
    mkdirSync(join(root, "store", "abc"), { recursive: true });
    writeFileSync(join(root, "store", "abc", "x.mjs"), "", { mode: 0o666 });
    chmodSync(join(root, "store", "abc", "x.mjs"), 0o666);
    expect(stateDirProblems(root)).toEqual([]);
    expect(stateDirProblems(root, { deep: true }).map((p) => p.path)).toEqual([
      join(root, "store", "abc", "x.mjs"),
    ]);
  });
});
