import { execFileSync } from "node:child_process";
import { linkSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ProfileError, packPackage, StateDirectory } from "../../src/index.js";
import { computeManifest } from "../../src/package.js";
import {
  descriptor,
  FIXTURE_KEY,
  listing,
  makePackage,
  otherKey,
  ownerConfig,
  rawTgz,
  tempDir,
} from "../_helpers.js";

const work = tempDir();
const files = descriptor("acme.files", "acme", [{ id: "a" }, { id: "b", path: ["files", "b"] }]);

async function freshHome(): Promise<StateDirectory> {
  const home = new StateDirectory(tempDir("rukh-home-"));
  const other = otherKey();
  await home.setConfig(
    ownerConfig({
      trustedPublishers: [
        {
          id: "acme",
          publicKey: readFileSync(
            new URL("../../../../fixtures/keys/example-publisher.pub", import.meta.url),
            "utf8",
          ).trim(),
        },
        { id: "beta", publicKey: other.publicKey },
      ],
      limits: { maxFileBytes: 65_536, maxPackageBytes: 200_000 },
    }) as never,
  );
  betaKey = other.privateKey;
  return home;
}
let betaKey: ReturnType<typeof otherKey>["privateKey"];

async function expectRejected(home: StateDirectory, source: string, code: string): Promise<void> {
  const before = listing(home.root);
  const active = await home.activeRevisionId();
  const err = await home.install(source).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProfileError);
  expect((err as ProfileError).code).toBe(code);
  expect(listing(home.root)).toEqual(before);
  expect(await home.activeRevisionId()).toBe(active);
}

describe("install", () => {
  let good: string;
  beforeAll(async () => {
    good = await makePackage(work, files);
  });

  it("installs a signed directory and a signed .tgz (same digest)", async () => {
    const home = await freshHome();
    const r1 = await home.install(good);
    const digest = r1.revision.extensions[0]!.digest;
    expect(digest).toBe((await computeManifest(good)).digest);
    expect(listing(home.root)).toContain(
      `store/${digest}/rukh-extension.json ${
        listing(good)
          .find((l) => l.startsWith("rukh-extension.json"))!
          .split(" ")[1]
      }`,
    );
    const tgz = join(work, "good.tgz");
    writeFileSync(tgz, await packPackage(good));
    const home2 = await freshHome();
    const r2 = await home2.install(tgz);
    expect(r2.revision.extensions[0]!.digest).toBe(digest);
    expect(r2.projection.tools.map((t) => t.identity).sort()).toEqual([
      "acme.files/a",
      "acme.files/b",
    ]);
  });

  const cases: [string, () => Promise<string>, string][] = [
    [
      "tar path traversal",
      async () => tgzFile("trav", [{ name: "../evil", data: Buffer.from("x") }]),
      "path_traversal",
    ],
    [
      "tar absolute path",
      async () => tgzFile("abs", [{ name: "/etc/evil", data: Buffer.from("x") }]),
      "path_traversal",
    ],
    ["tar symlink", async () => tgzFile("sym", [{ name: "link", type: "2" }]), "link_not_allowed"],
    [
      "tar hard link",
      async () => tgzFile("hard", [{ name: "link", type: "1" }]),
      "link_not_allowed",
    ],
    ["tar device", async () => tgzFile("dev", [{ name: "dev", type: "3" }]), "unsupported_entry"],
    [
      "tar duplicate path",
      async () =>
        tgzFile("dup", [
          { name: "a", data: Buffer.from("1") },
          { name: "a", data: Buffer.from("2") },
        ]),
      "duplicate_path",
    ],
    [
      "tar oversized file",
      async () => tgzFile("big", [{ name: "big", data: Buffer.alloc(70_000) }]),
      "file_too_large",
    ],
    [
      "tar oversized package",
      async () =>
        tgzFile(
          "huge",
          [0, 1, 2, 3].map((i) => ({ name: `f${i}`, data: Buffer.alloc(60_000) })),
        ),
      "package_too_large",
    ],
    [
      "not gzip",
      async () => writeTo("junk.tgz", Buffer.from("not a tarball")),
      "malformed_archive",
    ],
    [
      "directory symlink",
      async () => {
        const dir = await makePackage(work, files);
        symlinkSync("/etc/passwd", join(dir, "passwd"));
        return dir;
      },
      "link_not_allowed",
    ],
    [
      "directory hard link",
      async () => {
        const dir = await makePackage(work, files);
        // A second name outside the package for a file inside it.
        linkSync(join(dir, "bin", "run.mjs"), join(work, `outside-${Math.random()}`));
        return dir;
      },
      "link_not_allowed",
    ],
    [
      "oversized file in directory",
      async () => makePackage(work, files, undefined, { "big.bin": "x".repeat(70_000) }),
      "file_too_large",
    ],
    [
      "unsigned",
      async () => {
        const dir = await makePackage(work, files);
        const { rmSync } = await import("node:fs");
        rmSync(join(dir, "rukh-signature.json"));
        return dir;
      },
      "unsigned",
    ],
    [
      "untrusted publisher",
      async () =>
        makePackage(work, descriptor("zeta.x", "zeta", [{ id: "z" }]), otherKey().privateKey),
      "untrusted_publisher",
    ],
    [
      "tampered byte",
      async () => {
        const dir = await makePackage(work, files);
        writeFileSync(join(dir, "bin", "run.mjs"), "process.exit(1);\n");
        return dir;
      },
      "digest_mismatch",
    ],
    [
      "bad signature",
      async () => {
        const dir = await makePackage(work, files);
        const sig = JSON.parse(readFileSync(join(dir, "rukh-signature.json"), "utf8"));
        const raw = Buffer.from(sig.signature, "base64");
        raw[0]! ^= 1;
        sig.signature = raw.toString("base64");
        writeFileSync(join(dir, "rukh-signature.json"), JSON.stringify(sig));
        return dir;
      },
      "bad_signature",
    ],
    [
      "signed by another key under the same publisher",
      async () => makePackage(work, files, otherKey().privateKey),
      "bad_signature",
    ],
    [
      "malformed signature file",
      async () => {
        const dir = await makePackage(work, files);
        writeFileSync(
          join(dir, "rukh-signature.json"),
          '{"format":"rukh.signature/1","format":"x"}',
        );
        return dir;
      },
      "malformed_signature",
    ],
    [
      "invalid descriptor",
      async () => makePackage(work, { ...files, commands: "nope" }),
      "invalid_descriptor",
    ],
    [
      "missing descriptor",
      async () => tgzFile("nodesc", [{ name: "readme", data: Buffer.from("hi") }]),
      "missing_descriptor",
    ],
  ];

  it.each(cases)(
    "rejects %s with a stable code and leaves the state directory unchanged",
    async (_n, make, code) => {
      const home = await freshHome();
      await expectRejected(home, await make(), code);
    },
  );

  it("rejects an id already installed from another publisher", async () => {
    const home = await freshHome();
    await home.install(good);
    const hostile = await makePackage(work, { ...files, publisher: "beta" }, betaKey);
    await expectRejected(home, hostile, "extension_conflict");
  });

  it("upgrades an extension from the same publisher", async () => {
    const home = await freshHome();
    await home.install(good);
    const v2 = await makePackage(work, { ...files, version: "2.0.0" });
    const r = await home.install(v2);
    expect(r.revision.extensions.map((e) => e.version)).toEqual(["2.0.0"]);
  });
});

function writeTo(name: string, data: Buffer): string {
  const p = join(work, name);
  writeFileSync(p, data);
  return p;
}
function tgzFile(name: string, entries: Parameters<typeof rawTgz>[0]): string {
  return writeTo(`${name}.tgz`, rawTgz(entries));
}

describe("stored native programs", () => {
  it("get the execute bit from the signed descriptor, and nothing else does", async () => {
    const home = new StateDirectory(tempDir("rukh-exec-"));
    await home.setConfig(ownerConfig() as never);
    const desc = {
      format: "rukh.extension/2",
      id: "acme.files",
      version: "1.0.0",
      publisher: "acme",
      commands: [
        {
          id: "run",
          path: ["run"],
          summary: "Run a native program",
          execute: { mapping: "passthrough", program: "bin/tool.sh", runtime: "native" },
        },
      ],
    };
    const dir = await makePackage(work, desc, FIXTURE_KEY, {
      "bin/tool.sh": "#!/bin/sh\necho ran\n",
    });
    const p = await home.install(dir);
    const stored = join(home.root, "store", p.revision.extensions[0]!.digest);
    expect(statSync(join(stored, "bin/tool.sh")).mode & 0o111).not.toBe(0);
    expect(statSync(join(stored, "bin/run.mjs")).mode & 0o111).toBe(0);
    expect(execFileSync(join(stored, "bin/tool.sh"), { encoding: "utf8" })).toBe("ran\n");
  });
});
