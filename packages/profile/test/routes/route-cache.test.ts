import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseDescriptor } from "@rukh/descriptor";
import { describe, expect, it } from "vitest";
import { ProfileError, readActiveRoutes, storedDescriptor } from "../../src/index.js";
import { ROUTES_MAX_BYTES } from "../../src/route-cache.js";
import { readRouteCache } from "../../src/routes/_route-cache.js";
import { tempDir } from "../_helpers.js";
import { publishedFiles } from "./_published.js";

const published = () => publishedFiles();

async function code(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => (e instanceof ProfileError ? e.code : String(e)),
  );
}

describe("route cache", () => {
  it("is null before the first publication", async () => {
    expect(await readActiveRoutes(tempDir("rukh-routes-"))).toBeNull();
  });

  it("holds the active revision's route table, equal to the projection's", async () => {
    const { root, pub } = await published();
    const active = await readActiveRoutes(root);
    expect(active?.revisionId).toBe(pub.revisionId);
    expect(active?.commandGeneration).toBe(pub.revision.commandGeneration);
    expect(active?.routes).toEqual(JSON.parse(JSON.stringify(pub.projection.routes)));
    expect(active?.routes.commands.map((c) => c.path.join(" "))).toEqual(["files count"]);
  });

  it("follows every publication, including a rollback", async () => {
    const { root, home, pub } = await published();
    const second = await home.disable("acme.files");
    expect((await readActiveRoutes(root))?.routes.commands).toEqual([]);
    const back = await home.rollback(pub.revisionId);
    const active = await readActiveRoutes(root);
    expect(second.revisionId).not.toBe(back.revisionId);
    expect(active?.revisionId).toBe(back.revisionId);
    expect(active?.routes.commands).toHaveLength(1);
  });

  it("is null for a revision that records no digest of its cache (an earlier version's)", async () => {
    const { root, home } = await published();
    expect(await readActiveRoutes(root)).not.toBeNull();
    // An earlier version's revision: no routesDigest, so its cache is never trusted.
    const { canonicalJson, fingerprint } = await import("@rukh/json");
    const id = (await home.activeRevisionId())!;
    const { routesDigest: _, ...old } = await home.readRevision(id);
    const oldId = fingerprint(old as never);
    writeFileSync(join(root, "revisions", `${oldId}.json`), canonicalJson(old as never));
    writeFileSync(
      join(root, "revisions", `${oldId}.routes.json`),
      readFileSync(join(root, "revisions", `${id}.routes.json`)),
    );
    writeFileSync(join(root, "active"), `${oldId}\n`);
    expect(await readActiveRoutes(root)).toBeNull();
  });

  it("is null for a revision published without a cache (fall back to projection())", async () => {
    const { root, pub } = await published();
    const { rmSync } = await import("node:fs");
    rmSync(join(root, "revisions", `${pub.revisionId}.routes.json`));
    expect(await readActiveRoutes(root)).toBeNull();
  });

  it.each([
    ["not JSON", () => "{"],
    ["followed by a line its format does not have", (t: string) => `${t}{}\n`],
    [
      "edited to map a path elsewhere (its digest no longer matches the revision's)",
      (t: string) => t.replace('"count"', '"cuont"'),
    ],
    ["another format", (t: string) => t.replace("rukh.cli-routes/8", "rukh.cli-routes/9")],
    [
      "a bucket of commands edited under an intact header (the bucket fails its own digest)",
      (t: string) => {
        const nl = t.indexOf("\n");
        return t.slice(0, nl) + t.slice(nl).replace('"count"', '"cuont"');
      },
    ],
    ["too large", () => " ".repeat(ROUTES_MAX_BYTES + 1)],
  ])("fails closed with invalid_state when the file is %s", async (_name, edit) => {
    const { root, pub } = await published();
    const file = join(root, "revisions", `${pub.revisionId}.routes.json`);
    writeFileSync(file, edit(readFileSync(file, "utf8")));
    expect(await code(readActiveRoutes(root))).toBe("invalid_state");
  });

  it("fails closed with invalid_state when a command's route is edited in its package's part (the line fails its own digest)", async () => {
    const { root, pub } = await published();
    const part = join(root, "revisions", "parts", `${pub.revision.extensions[0]!.digest}.json`);
    const text = readFileSync(part, "utf8");
    writeFileSync(part, text.replaceAll('"count"', '"cuont"'));
    expect(readFileSync(part, "utf8")).not.toBe(text);
    expect(await code(readActiveRoutes(root))).toBe("invalid_state");
  });

  it("hands a run the descriptor publication validated, and nothing once the part is edited", async () => {
    const { root, pub } = await published();
    const digest = pub.revision.extensions[0]!.digest;
    const stored = parseDescriptor(
      readFileSync(join(root, "store", digest, "rukh-extension.json")),
    );
    if (!stored.ok) throw new Error("the fixture's descriptor is invalid");
    const r = readRouteCache(root);
    if (!r.ok) throw new Error(r.message);
    const bucket = r.bucket("files")!;
    expect(bucket.row(0).part).toBe(digest);
    // What a part holds is the validated value itself, not merely the same file.
    expect(bucket.descriptor(0)).toStrictEqual(stored.value);
    expect(await storedDescriptor(root, digest, stored.value)).toBe(stored.value);

    // The descriptor line edited: the whole part fails its digest, and a run
    // parses the package's own descriptor instead; the route line is intact.
    const part = join(root, "revisions", "parts", `${digest}.json`);
    const text = readFileSync(part, "utf8");
    writeFileSync(part, text.replace('"summary":"', '"summary":"!'));
    const again = readRouteCache(root);
    if (!again.ok) throw new Error(again.message);
    expect(again.bucket("files")!.descriptor(0)).toBeUndefined();
    expect(again.bucket("files")!.route(0).identity).toBe("acme.files/count");
  });

  it("rejects an active file that names no revision id", async () => {
    const { root } = await published();
    writeFileSync(join(root, "active"), "nonsense\n");
    expect(await code(readActiveRoutes(root))).toBe("invalid_state");
  });
});
