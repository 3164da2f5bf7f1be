import {
  chmodSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkStoredPackage,
  ProfileError,
  StateDirectory,
  storedDescriptor,
} from "../../src/index.js";
import { descriptor, makePackage, ownerConfig, tempDir } from "../_helpers.js";

const work = tempDir();

async function installed(): Promise<{
  root: string;
  digest: string;
  pkg: string;
  home: StateDirectory;
}> {
  const home = new StateDirectory(tempDir("rukh-storecheck-"));
  await home.setConfig(ownerConfig() as never);
  const pkg = await makePackage(work, descriptor("acme.files", "acme", [{ id: "x" }]), undefined, {
    "lib.mjs": "export const x = 1;\n",
  });
  const p = await home.install(pkg);
  return { root: home.root, digest: p.revision.extensions[0]!.digest, pkg, home };
}

async function problem(root: string, digest: string): Promise<string> {
  try {
    await checkStoredPackage(root, digest);
    return "intact";
  } catch (e) {
    if (e instanceof ProfileError && e.code === "store_corrupt") return e.message;
    throw e;
  }
}

describe("the check of a stored package when it is used", () => {
  it("hashes once, then trusts only unchanged stamps", async () => {
    const { root, digest } = await installed();
    expect(await checkStoredPackage(root, digest)).toBe("hashed");
    expect(await checkStoredPackage(root, digest)).toBe("recorded");
    // Touched but intact: hashed again, recorded again.
    const file = join(root, "store", digest, "lib.mjs");
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(await checkStoredPackage(root, digest)).toBe("hashed");
    expect(await checkStoredPackage(root, digest)).toBe("recorded");
  });

  it("keeps in memory a record it cannot write, and uses it as it would the file", async () => {
    const { root, digest } = await installed();
    // Nothing can be made under cache/ now: a file stands where the folder would be.
    rmSync(join(root, "cache"), { recursive: true, force: true });
    writeFileSync(join(root, "cache"), "");
    expect(await checkStoredPackage(root, digest)).toBe("hashed");
    expect(await checkStoredPackage(root, digest)).toBe("recorded");
    // The stamps in memory are checked like the file's: a change is still found.
    chmodSync(join(root, "store", digest, "lib.mjs"), 0o644);
    writeFileSync(join(root, "store", digest, "lib.mjs"), "export const x = 2;\n");
    expect(await problem(root, digest)).toContain('"lib.mjs" has been modified');
  });

  it("stores files read-only", async () => {
    const { root, digest } = await installed();
    const dir = join(root, "store", digest);
    for (const name of ["lib.mjs", "rukh-extension.json", join("bin", "run.mjs")])
      expect(statSync(join(dir, name)).mode & 0o222).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([
      "bin",
      "lib.mjs",
      "rukh-extension.json",
      "rukh-signature.json",
    ]);
  });

  it.each([
    [
      "an edited program",
      (dir: string) => writeFileSync(join(dir, "bin", "run.mjs"), "evil();\n"),
      /"bin\/run\.mjs" has been modified/,
    ],
    [
      "a same-size edit",
      (dir: string) => writeFileSync(join(dir, "lib.mjs"), "export const x = 2;\n"),
      /"lib\.mjs" has been modified/,
    ],
    [
      "an added module",
      (dir: string) => writeFileSync(join(dir, "bin", "shadow.mjs"), ""),
      /the entries of "bin" changed \(shadow\.mjs\)/,
    ],
    [
      "an emptied file",
      (dir: string) => writeFileSync(join(dir, "lib.mjs"), ""),
      /"lib\.mjs" has been modified/,
    ],
    [
      "a removed file",
      (dir: string) => unlinkSync(join(dir, "lib.mjs")),
      /the entries of its root changed/,
    ],
    [
      "an edited signature",
      (dir: string) => writeFileSync(join(dir, "rukh-signature.json"), "{}"),
      /"rukh-signature\.json" has been modified/,
    ],
  ])("refuses %s, naming it", async (_what, tamper, message) => {
    const { root, digest } = await installed();
    await checkStoredPackage(root, digest);
    const dir = join(root, "store", digest);
    chmodSync(join(dir, "lib.mjs"), 0o644);
    tamper(dir);
    expect(await problem(root, digest)).toMatch(message);
  });

  it("refuses a package edited before its first check", async () => {
    const { root, digest } = await installed();
    writeFileSync(join(root, "store", digest, "lib.mjs"), "evil();\n");
    expect(await problem(root, digest)).toMatch(
      /has been modified \(its content now hashes to [0-9a-f]{64}\)/,
    );
  });

  it("repairs a modified entry when the same package is installed again", async () => {
    const { root, digest, pkg, home } = await installed();
    writeFileSync(join(root, "store", digest, "lib.mjs"), "evil();\n");
    expect(await problem(root, digest)).not.toBe("intact");
    expect((await home.install(pkg)).published).toBe(false);
    expect(await problem(root, digest)).toBe("intact");
  });
});

describe("the one reader of a stored descriptor", () => {
  it("parses a descriptor once per stamp, again once the file is rewritten, and fails closed", async () => {
    const { root, digest } = await installed();
    const first = await storedDescriptor(root, digest);
    expect(first.id).toBe("acme.files");
    expect(await storedDescriptor(root, digest)).toBe(first);
    const file = join(root, "store", digest, "rukh-extension.json");
    chmodSync(file, 0o644);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace('"acme.files"', '"acme.other"'));
    expect((await storedDescriptor(root, digest)).id).toBe("acme.other");
    // A rewritten descriptor never passes the package's own check.
    expect(await problem(root, digest)).toMatch(/^stored package [0-9a-f]{64}: /);
    writeFileSync(file, "{");
    await expect(storedDescriptor(root, digest)).rejects.toMatchObject({ code: "store_corrupt" });
  });
});
