import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StateDirectory } from "../../src/index.js";
import { readRouteCache } from "../../src/routes/_route-cache.js";
import { routeCheckPath, stampOf } from "../../src/routes/index.js";
import { descriptor, makePackage, tempDir } from "../_helpers.js";
import { publishedFiles } from "./_published.js";

// A route cache checked whole is recorded with the stamps of its files, and
// a reader skips the hashing of a file that keeps its stamp. What must hold:
// the record never vouches for bytes written after it (an edit is caught as
// without one), nothing is recorded unless every digest held, and a record
// goes with its revision. A publication records what it wrote itself.
async function published() {
  const { root, home, pub } = await publishedFiles([{ id: "list", path: ["files", "list"] }]);
  const part = join(root, "revisions", "parts", `${pub.revision.extensions[0]!.digest}.json`);
  return { root, home, pub, part, record: routeCheckPath(root, pub.revisionId) };
}

/** The same, with the record its publication left removed: a reader's record is tested alone. */
async function unrecorded() {
  const p = await published();
  rmSync(p.record);
  return p;
}

/** Whether `act` (reads, then remember()) leaves the record as it was: nothing new to record. */
function leavesRecord(record: string, act: () => void): boolean {
  // A record is written anew and renamed into place: another inode, whatever the clock's tick.
  const stamp = () => {
    const st = statSync(record, { bigint: true });
    return `${st.ino}:${st.ctimeNs}`;
  };
  const written = stamp();
  act();
  return stamp() === written;
}

/** Installs `acme.notes` (`notes add`) on top: a second publication. */
async function installNotes(home: StateDirectory) {
  return home.install(
    await makePackage(
      tempDir(),
      descriptor("acme.notes", "acme", [{ id: "add", path: ["notes", "add"] }]),
    ),
  );
}

/** Edits the route line of `files count` in its part, keeping its length. */
function editRoute(part: string): void {
  writeFileSync(part, readFileSync(part, "utf8").replaceAll('"count"', '"cuont"'));
}

/** The stamps a record holds, by name: its first line's files and its second line's parts. */
function recorded(record: string): Record<string, string> {
  const [head, parts, rest] = readFileSync(record, "utf8").split("\n");
  expect(rest).toBe("");
  return { ...JSON.parse(head!).files, ...JSON.parse(parts!) };
}

function read(root: string) {
  const r = readRouteCache(root);
  if (!r.ok) throw new Error(r.message);
  return r;
}

/** Every route and descriptor the cache gives, read through its buckets. */
function everything(root: string) {
  const all = read(root);
  return all.commands.map((c, i) => ({
    path: c.path,
    route: all.route(i),
    descriptor: all.descriptor(i),
  }));
}

describe("the record of a route cache checked whole", () => {
  it("is written by remember() with every file the cache is made of, and a read through it gives the same routes", async () => {
    const { root, pub, record } = await unrecorded();
    const before = everything(root);
    expect(existsSync(record)).toBe(false);
    read(root).remember();
    const files = recorded(record);
    expect(Object.keys(files).sort()).toEqual([
      `part:${pub.revision.extensions[0]!.digest}`,
      "revision",
      "routes",
    ]);
    expect(statSync(record).mode & 0o777).toBe(0o600);
    expect(everything(root)).toEqual(before);
    // Everything read was as recorded: remembering again writes nothing.
    expect(
      leavesRecord(record, () => {
        const again = read(root);
        again.bucket("files")!.route(0);
        again.remember();
      }),
    ).toBe(true);
  });

  it("never vouches for a route line edited after it: the read fails its digest as without a record", async () => {
    const { root, part } = await unrecorded();
    read(root).remember();
    const text = readFileSync(part, "utf8");
    editRoute(part);
    expect(() => read(root).bucket("files")!.route(0)).toThrow(/does not match its digest/);
    // Nor a descriptor edited in the part.
    writeFileSync(part, text.replace('"summary":"', '"summary":"!'));
    expect(read(root).bucket("files")!.descriptor(0)).toBeUndefined();
  });

  it("never vouches for a revision or a routes file edited after it", async () => {
    const { root, pub } = await unrecorded();
    read(root).remember();
    const routes = join(root, "revisions", `${pub.revisionId}.routes.json`);
    const text = readFileSync(routes, "utf8");
    // The same length: a changed summary in a bucket line (after the header).
    const nl = text.indexOf("\n") + 1;
    writeFileSync(
      routes,
      text.slice(0, nl) + text.slice(nl).replace(/"summary":"./, '"summary":"#'),
    );
    expect(readFileSync(routes, "utf8")).not.toBe(text);
    expect(() => read(root).bucket("files")).toThrow(/do not match their digest/);
    writeFileSync(routes, text);
    const rev = join(root, "revisions", `${pub.revisionId}.json`);
    writeFileSync(rev, `${readFileSync(rev, "utf8")} `);
    expect(readRouteCache(root)).toMatchObject({ ok: false, why: "damaged" });
  });

  it("is not written when a digest fails, and a forged one vouches for nothing", async () => {
    const { root, pub, part, record } = await unrecorded();
    editRoute(part);
    read(root).remember();
    expect(existsSync(record)).toBe(false);
    // A record naming the files with stamps they do not have: hashed all the same.
    mkdirSync(join(record, ".."), { recursive: true });
    writeFileSync(
      record,
      `${JSON.stringify({
        format: "rukh.routecheck/2",
        files: { revision: "1:2:3:4:5", routes: "1:2:3:4:5" },
      })}\n${JSON.stringify({ [`part:${pub.revision.extensions[0]!.digest}`]: "1:2:3:4:5" })}\n`,
    );
    expect(() => read(root).bucket("files")!.route(0)).toThrow(/does not match its digest/);
  });

  it("reads its parts' line only for a part: a reader of the revision and routes alone takes the first line, whatever follows", async () => {
    const { root, pub, part, record } = await unrecorded();
    read(root).remember();
    const [head, parts] = readFileSync(record, "utf8").split("\n");
    expect(Object.keys(JSON.parse(head!).files).sort()).toEqual(["revision", "routes"]);
    expect(Object.keys(JSON.parse(parts!))).toEqual([`part:${pub.revision.extensions[0]!.digest}`]);
    // The parts' line no longer parses: the revision and routes file are still vouched for.
    writeFileSync(record, `${head}\n${parts!.slice(0, -1)}\n`);
    // Everything read (the revision, the routes file's header) was as recorded: nothing to add.
    expect(leavesRecord(record, () => read(root).remember())).toBe(true);
    // A part is hashed (its stamp is not vouched for), and an edit to it is caught.
    editRoute(part);
    expect(() => read(root).bucket("files")!.route(0)).toThrow(/does not match its digest/);
  });

  it("of the previous format, one JSON object, vouches for nothing: the next reader hashes and records anew", async () => {
    const { root, record } = await unrecorded();
    read(root).remember();
    const files = recorded(record);
    writeFileSync(record, JSON.stringify({ format: "rukh.routecheck/1", files }));
    expect(leavesRecord(record, () => read(root).remember())).toBe(false);
    expect(recorded(record)).toEqual(files);
  });

  it("costs a reader nothing where it cannot be written", async () => {
    const { root, record } = await unrecorded();
    // Where the record's folder should be, a file: remembering does nothing, reading works.
    rmSync(join(root, "cache"), { recursive: true, force: true });
    writeFileSync(join(root, "cache"), "");
    read(root).remember();
    expect(existsSync(record)).toBe(false);
    expect(everything(root)).toHaveLength(2);
  });

  it("goes with its revision when garbage is collected", async () => {
    const { root, home, pub, record } = await unrecorded();
    read(root).remember();
    await home.disable("acme.files");
    read(root).remember();
    const later = routeCheckPath(root, (await home.activeRevisionId())!);
    expect(existsSync(record) && existsSync(later)).toBe(true);
    // What a writer killed between its write and its rename leaves goes too.
    const left = `${record}.4242.tmp`;
    const kept = `${later}.4242.tmp`;
    writeFileSync(left, "{");
    writeFileSync(kept, "{");
    const report = await home.collectGarbage({ keep: 1, maxAgeDays: 0 });
    expect(report.revisions).toContain(pub.revisionId);
    expect(existsSync(record) || existsSync(left)).toBe(false);
    expect(existsSync(later) && existsSync(kept)).toBe(true);
  });
});

describe("the record a publication leaves", () => {
  it("holds the files it wrote with the stamps they have, and a reader through it checks nothing again", async () => {
    const { root, pub, part, record } = await published();
    const routes = join(root, "revisions", `${pub.revisionId}.routes.json`);
    const revision = join(root, "revisions", `${pub.revisionId}.json`);
    expect(recorded(record)).toEqual({
      [`part:${pub.revision.extensions[0]!.digest}`]: stampOf(part),
      revision: stampOf(revision),
      routes: stampOf(routes),
    });
    expect(statSync(record).mode & 0o777).toBe(0o600);
    // Every file read was as recorded: the reader has nothing to add.
    expect(
      leavesRecord(record, () => {
        expect(everything(root)).toHaveLength(2);
        const r = read(root);
        r.bucket("files")!.descriptor(0);
        r.remember();
      }),
    ).toBe(true);
  });

  it("never vouches for a file edited after the publication", async () => {
    const { root, part } = await published();
    editRoute(part);
    expect(() => read(root).bucket("files")!.route(0)).toThrow(/does not match its digest/);
  });

  it("carries a kept package's part from its base's record and adds the new package's", async () => {
    const { root, home, pub, record } = await published();
    const kept = `part:${pub.revision.extensions[0]!.digest}`;
    const next = await installNotes(home);
    const added = `part:${next.revision.extensions.find((e) => e.id === "acme.notes")!.digest}`;
    const files = recorded(routeCheckPath(root, next.revisionId));
    expect(Object.keys(files).sort()).toEqual([added, kept, "revision", "routes"].sort());
    expect(files[kept]).toBe(recorded(record)[kept]);
    expect(files[added]).toBe(
      stampOf(join(root, "revisions", "parts", `${added.slice("part:".length)}.json`)),
    );
  });

  it("leaves out a kept part its base's record did not hold: the reader hashes it", async () => {
    const { root, home, pub, part, record } = await published();
    rmSync(record);
    const next = await installNotes(home);
    const kept = `part:${pub.revision.extensions[0]!.digest}`;
    expect(recorded(routeCheckPath(root, next.revisionId))).not.toHaveProperty(kept);
    // And so an edit made before this publication is still caught.
    editRoute(part);
    expect(() => read(root).bucket("files")!.route(0)).toThrow(/does not match its digest/);
  });
});
