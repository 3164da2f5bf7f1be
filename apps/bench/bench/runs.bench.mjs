// Reading a large journal history with `rukh runs`: the oldest call by id, a
// filter that matches nothing and an old time window, each against
// `runs list` (the newest 50, which reads only the newest segments) in the
// same run. The history is 1 GiB of archive segments (about 1.25 million
// calls, generated once into the temporary directory and reused, see
// _history.mjs). A history written by hand has no segment indexes (the
// archiver writes them as it appends); the first read writes them, and is
// timed apart. Target: each ≤ 500 ms.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RUKH, run } from "./_fixtures.mjs";
import { history } from "./_history.mjs";

const BYTES = 1_073_741_824;
/** The index format the core writes (docs/core.md, *Reading*). */
const INDEX_FORMAT = "rukh.journal-index/2";

export default async function runs(suite) {
  const h = await history(BYTES);
  const rukh = (...args) => run(RUKH, args, h.env);
  // A reused history may hold the indexes an earlier run wrote: then there is no first read to
  // time. Indexes of another format (an earlier build's) are rebuilt by the first read.
  const archive = join(h.root, "journal", "archive");
  const first = join(archive, "0000000001.index.json");
  const indexed =
    existsSync(first) && readFileSync(first, "utf8").startsWith(`{"format":"${INDEX_FORMAT}"`);
  const t0 = performance.now();
  rukh("runs", "show", h.oldest);
  if (!indexed)
    suite.report(
      `runs: over ${h.calls.toLocaleString("en")} calls (1 GiB of journal)`,
      "the first read, which writes every segment's index",
      performance.now() - t0,
      undefined,
      "once after an upgrade, or for a history copied without its indexes",
    );
  // An hour of the second day: in the oldest segments.
  const since = new Date(Date.parse(h.first) + 86_400_000).toISOString();
  const until = new Date(Date.parse(h.first) + 90_000_000).toISOString();
  await suite.compare(`runs: over ${h.calls.toLocaleString("en")} calls (1 GiB of journal)`, {
    baseline: ["runs list (the newest 50)", () => rukh("runs", "list")],
    cases: [
      ["runs show of the oldest call", () => rukh("runs", "show", h.oldest)],
      [
        "runs list --command of a command never run",
        () => rukh("runs", "list", "--command", "bench.none/c0"),
      ],
      [
        "runs list --since/--until an hour of the second day",
        () => rukh("runs", "list", "--since", since, "--until", until),
      ],
    ],
    samples: 10,
    warmup: 1,
    note: "target: ≤ 500 ms",
  });
}
