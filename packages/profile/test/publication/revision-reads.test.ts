// Two readers of one state directory in one process (a built-in's journal
// and its publication) verify a revision once; an edit of the file since
// is seen by the next reader, as doctor's check needs.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, type JsonValue, sha256Hex } from "@rukh/json";
import { afterEach, expect, it } from "vitest";
import { PublishedRevisions } from "../../src/publication/_published-revisions.js";
import { janeRevision, tempDir } from "../_helpers.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A state directory holding one revision; its root, id and file. */
function oneRevision(): { root: string; id: string; file: string; text: string } {
  const root = tempDir("rukh-revision-reads-");
  roots.push(root);
  const text = canonicalJson(janeRevision("1.2.0") as JsonValue);
  const id = sha256Hex(text);
  mkdirSync(join(root, "revisions"));
  const file = join(root, "revisions", `${id}.json`);
  writeFileSync(file, text);
  return { root, id, file, text };
}

it("a second reader of the same state directory takes the revision the first verified", () => {
  const { root, id } = oneRevision();
  const first = new PublishedRevisions(root).read(id);
  expect(new PublishedRevisions(root).read(id)).toBe(first);
});

it("a reader of another state directory verifies its own file", () => {
  const a = oneRevision();
  const b = oneRevision();
  expect(a.id).toBe(b.id);
  const first = new PublishedRevisions(a.root).read(a.id);
  const other = new PublishedRevisions(b.root).read(b.id);
  expect(other).toEqual(first);
  expect(other).not.toBe(first);
});

/** Waits past the filesystem's timestamp tick, so that a write now is stamped apart from one before. */
const nextTick = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);

it("a file rewritten since, even with the same bytes, is read and verified again", () => {
  const { root, id, file, text } = oneRevision();
  const first = new PublishedRevisions(root).read(id);
  nextTick();
  writeFileSync(file, text);
  const again = new PublishedRevisions(root).read(id);
  expect(again).toEqual(first);
  expect(again).not.toBe(first);
});

it("an edit after a verified read fails the next reader, as doctor sees it", () => {
  const { root, id, file, text } = oneRevision();
  new PublishedRevisions(root).read(id);
  // A different length: its stamp differs whatever the timestamp tick.
  writeFileSync(file, text.replace("1.2.0", "16.6.6"));
  expect(() => new PublishedRevisions(root).read(id)).toThrow(/does not hash to its id/);
});

it("a removed file is no longer a revision to the next reader", () => {
  const { root, id, file } = oneRevision();
  new PublishedRevisions(root).read(id);
  rmSync(file);
  expect(() => new PublishedRevisions(root).read(id)).toThrow(/does not exist/);
});

it("a revision garbage collection forgets is read again from its file", () => {
  const { root, id } = oneRevision();
  const reader = new PublishedRevisions(root);
  const first = reader.read(id);
  reader.forget(id);
  expect(new PublishedRevisions(root).read(id)).not.toBe(first);
});
