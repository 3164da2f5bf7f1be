import { readdirSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { stdioTranscript, useState, type Wire } from "../_helpers.js";

// The golden wire corpus: test/fixtures/<protocol-version>/<message-kind>/<case>.json,
// each `{ send: [messages…], expect: [every message the host writes] }`.
const corpus = new URL("../fixtures/", import.meta.url);
const CASES = readdirSync(corpus, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".json"))
  .sort();

const at = useState();

it("has a corpus for every served protocol version", () => {
  expect(new Set(CASES.map((c) => c.split("/")[0]))).toEqual(
    new Set(["2026-07-28", "2025-11-25", "2025-06-18"]),
  );
});

it.each(CASES)("%s", async (file) => {
  const c = JSON.parse(readFileSync(new URL(file, corpus), "utf8")) as {
    send: Wire[];
    expect: Wire[];
  };
  const { text, closed } = await stdioTranscript(
    {
      state: at.root,
      binding: { subject: "s", actor: "a", taskAuthorityRef: "t", preset: "default" },
    },
    c.send,
  );
  expect(closed).toBe("eof");
  expect(text.endsWith("\n")).toBe(true);
  // Requests run concurrently, so responses may come in any order; notifications
  // of one stream keep theirs (checked where it matters, in calls.test.ts).
  const got = text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(got).toHaveLength(c.expect.length);
  expect(got).toEqual(expect.arrayContaining(c.expect));
});
