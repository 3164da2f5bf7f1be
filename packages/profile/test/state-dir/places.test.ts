import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  brandStateOptions,
  journalDirVariable,
  ProfileError,
  placesLine,
  StateDirectory,
} from "../../src/index.js";
import { descriptor, makePackage, ownerConfig, tempDir } from "../_helpers.js";

// Where a process of a state directory writes (`StateDirectory.places`):
// the journal directory and what set it, the cursor key's directory, and
// what a read-only state directory refuses.

const made: string[] = [];
const temp = (prefix: string) => {
  const d = tempDir(prefix);
  made.push(d);
  return d;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const work = temp("rukh-places-work-");

async function published(config: Record<string, unknown> = {}): Promise<StateDirectory> {
  const state = new StateDirectory(temp("rukh-places-"));
  await state.setConfig(JSON.stringify(ownerConfig(config)));
  return state;
}

/** `root` mounted read-only at a new directory, or why not (the test then skips). */
function readOnly(root: string): { at: string; release: () => void } | string {
  if (process.getuid?.() !== 0) return "only root can bind-mount read-only";
  const at = temp("rukh-places-ro-");
  const run = (args: string[]) => spawnSync("mount", args, { encoding: "utf8" });
  const bind = run(["--bind", root, at]);
  if (bind.status !== 0) return `mount --bind is refused here: ${bind.stderr.trim()}`;
  if (run(["-o", "remount,bind,ro", at]).status !== 0) {
    spawnSync("umount", [at]);
    return "mount -o remount,bind,ro is refused here";
  }
  return { at, release: () => void spawnSync("umount", [at]) };
}

describe("the journal directory", () => {
  it("is the state directory itself unless one is set", async () => {
    const state = await published();
    expect(await state.places()).toEqual({
      root: state.root,
      readOnly: undefined,
      journalDir: undefined,
      journalRoot: state.root,
      keyRoot: state.root,
      refusal: undefined,
    });
  });

  it("is the owner configuration's /journal/dir, and a process's own directory wins over it", async () => {
    const state = await published({ journal: { dir: "/srv/acme/journal" } });
    expect((await state.places()).journalDir).toEqual({
      path: "/srv/acme/journal",
      setBy: "/journal/dir",
    });
    const own = new StateDirectory(
      state.root,
      brandStateOptions("acme", { ACME_JOURNAL_DIR: "/j" }),
    );
    expect(await own.places()).toMatchObject({
      journalDir: { path: "/j", setBy: "ACME_JOURNAL_DIR" },
      journalRoot: "/j",
      // A writable state directory still takes the cursor key: its replicas agree on cursors.
      keyRoot: state.root,
    });
  });

  it("is named by the brand's variable, which an empty value does not set", () => {
    expect(journalDirVariable("my-cli")).toBe("MY_CLI_JOURNAL_DIR");
    expect(brandStateOptions("acme", { ACME_JOURNAL_DIR: "" })).toEqual({ brand: "acme" });
  });

  it("refuses a relative directory in the variable, naming it", async () => {
    const state = new StateDirectory(
      (await published()).root,
      brandStateOptions("acme", { ACME_JOURNAL_DIR: "journal" }),
    );
    const e = await state.places().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProfileError);
    expect((e as ProfileError).code).toBe("invalid_config");
    expect((e as ProfileError).message).toBe(
      'ACME_JOURNAL_DIR is "journal"; expected an absolute directory, without . or .. segments, of at most 4096 bytes',
    );
  });
});

describe("a read-only state directory", () => {
  it("refuses a host without a journal directory, naming /journal/dir and the brand's variable", async (t) => {
    const source = await published();
    const mount = readOnly(source.root);
    if (typeof mount === "string") return t.skip(mount);
    try {
      const state = new StateDirectory(mount.at, { brand: "acme" });
      const places = await state.places();
      expect(places.readOnly).toBe("on a read-only file system");
      expect(places.keyRoot).toBeUndefined();
      expect(places.refusal).toBe(
        `the state directory ${mount.at} is read-only (on a read-only file system), and a host writes a journal, a diagnostics log and caches: give it a directory it can write, for every host in the owner configuration's /journal/dir (publish it where the state directory is writable, then ship that copy again), or for this host alone in ACME_JOURNAL_DIR`,
      );
      const e = await state.cursorKey().catch((x: unknown) => x);
      expect((e as ProfileError).code).toBe("read_only");
    } finally {
      mount.release();
    }
  });

  it("keeps the cursor key in the journal directory unless it ships one", async (t) => {
    const source = await published();
    const mount = readOnly(source.root);
    if (typeof mount === "string") return t.skip(mount);
    const dir = join(work, "journal-key");
    try {
      const state = new StateDirectory(mount.at, { journalDir: dir });
      const key = await state.cursorKey();
      expect(readFileSync(join(dir, "keys", "cursor.key"))).toEqual(key);
      expect(await state.cursorKey()).toEqual(key);
      expect(placesLine(await state.places())).toBe(
        `${mount.at} is read-only; the journal, diagnostics log and caches are in ${dir} (the journalDir option), the cursor key ${dir}/keys/cursor.key (not shipped with it: cursors differ between replicas)`,
      );
    } finally {
      mount.release();
    }
    // Shipped: the key made where the directory was writable is the one every copy uses.
    const shipped = await source.cursorKey();
    const again = readOnly(source.root);
    if (typeof again === "string") return t.skip(again);
    try {
      const state = new StateDirectory(again.at, { journalDir: dir });
      expect(await state.cursorKey()).toEqual(shipped);
      expect((await state.places()).keyRoot).toBe(again.at);
    } finally {
      again.release();
    }
  });

  it("refuses every change with read_only before reading anything, and still answers what only reads", async (t) => {
    const source = await published();
    const pkg = await makePackage(work, descriptor("acme.files", "acme", [{ id: "x" }]));
    const mount = readOnly(source.root);
    if (typeof mount === "string") return t.skip(mount);
    try {
      const state = new StateDirectory(mount.at);
      for (const change of [
        () => state.install(pkg),
        () => state.setConfig(JSON.stringify(ownerConfig())),
        () => state.collectGarbage(),
      ]) {
        const e = await change().catch((x: unknown) => x);
        expect(e).toBeInstanceOf(ProfileError);
        expect((e as ProfileError).code).toBe("read_only");
        expect((e as ProfileError).message).toBe(
          `the state directory ${mount.at} cannot be written (on a read-only file system): a change publishes a new profile revision into it. Make the change where the state directory is writable (the copy this one was shipped from), then ship that copy again`,
        );
      }
      expect((await state.collectGarbage({ dryRun: true })).dryRun).toBe(true);
      expect(await state.checkRouteCache({ repair: true })).toBe("matches");
      expect((await state.projection()).tools).toEqual([]);
    } finally {
      mount.release();
    }
    expect(existsSync(join(source.root, "store"))).toBe(false);
  });
});
