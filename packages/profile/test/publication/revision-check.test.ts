// An installed extension's origin in a revision: optional, so revisions
// written before it stay valid, and strict when present.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, type JsonValue, sha256Hex } from "@rukh/json";
import { expect, it } from "vitest";
import { PublishedRevisions } from "../../src/publication/_published-revisions.js";
import {
  registryWithoutUserInfo,
  validateRevision,
} from "../../src/publication/_revision-check.js";
import { janeRevision, tempDir } from "../_helpers.js";

const ORIGIN = {
  registry: "https://registry.test/",
  name: "@jane/hello",
  version: "1.2.0",
  integrity: "sha512-AAAA",
  spec: "^1.2",
};

function revision(origin: unknown) {
  return janeRevision("1.2.0", origin !== undefined ? { origin } : {});
}

it.each<[string, unknown, string | undefined]>([
  ["no origin (a file install, or a revision from before origins)", undefined, undefined],
  ["a registry origin", ORIGIN, undefined],
  ["a registry under a path", { ...ORIGIN, registry: "https://npm.test/api/npm/" }, undefined],
  ["not an object", "npm", "/extensions/0/origin"],
  ["a member missing", (({ spec: _, ...rest }) => rest)(ORIGIN), "/extensions/0/origin"],
  ["a member more", { ...ORIGIN, tarball: "x" }, "/extensions/0/origin"],
  ["an empty name", { ...ORIGIN, name: "" }, "/extensions/0/origin/name"],
  ["a number for a version", { ...ORIGIN, version: 1 }, "/extensions/0/origin/version"],
  ["a control character", { ...ORIGIN, spec: "^1\u001b[2J" }, "/extensions/0/origin/spec"],
  [
    "a registry that is no address",
    { ...ORIGIN, registry: "file:/x/" },
    "/extensions/0/origin/registry",
  ],
  [
    "a registry without its /",
    { ...ORIGIN, registry: "https://r.test" },
    "/extensions/0/origin/registry",
  ],
])("%s", (_name, origin, problem) => {
  const v = validateRevision(revision(origin) as never);
  if (problem === undefined) expect(v).toMatchObject({ ok: true });
  else expect(v.ok ? [] : v.issues.map((i) => i.path)).toEqual([problem]);
});

it("a registry with user info is no valid origin", () => {
  const v = validateRevision(
    revision({ ...ORIGIN, registry: "https://jane:s3cret@registry.test/" }) as never,
  );
  expect(v.ok ? [] : v.issues.map((i) => [i.path, i.message])).toEqual([
    [
      "/extensions/0/origin/registry",
      "expected a registry address without user info (user:password@)",
    ],
  ]);
});

// A revision written before registry addresses were cleaned may hold a
// password in its origin: it is read, and shown, without it.
it.each([
  ["a password", "https://jane:s3cret@registry.test/npm/", "https://registry.test/npm/"],
  ["a token for a user name", "http://t0k3n@127.0.0.1:4873/", "http://127.0.0.1:4873/"],
  ["nothing", "https://registry.test/", "https://registry.test/"],
])("an old revision whose registry has %s is read without it", (_what, recorded, read) => {
  const root = tempDir("rukh-old-revision-");
  try {
    const text = canonicalJson(revision({ ...ORIGIN, registry: recorded }) as JsonValue);
    const id = sha256Hex(text);
    mkdirSync(join(root, "revisions"));
    writeFileSync(join(root, "revisions", `${id}.json`), text);
    const got = new PublishedRevisions(root).read(id);
    expect(got.extensions[0]?.origin?.registry).toBe(read);
    expect(JSON.stringify(got)).not.toMatch(/s3cret|t0k3n/);
    expect(registryWithoutUserInfo(recorded)).toBe(read);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
