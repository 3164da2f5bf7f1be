// A journal history as a long-lived host leaves it: archive segments of
// 8 MiB, each call a start, a process and a final record, one call a second.
// Generating a gibibyte takes a while on a small machine, so a history is
// built once into the temporary directory and reused by later runs (its name
// says its size and the generator's version); delete it to build it anew.
import { randomUUID } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StateDirectory } from "@rukh/profile";
import { cleanEnv } from "./_fixtures.mjs";

const VERSION = 2;
const SEGMENT_BYTES = 8_388_608;
const START = Date.UTC(2026, 0, 1);
const OUTCOMES = [
  ["succeeded", "completed"],
  ["succeeded", "completed"],
  ["succeeded", "completed"],
  ["command_failed", "exit_status"],
  ["cancelled", "deadline"],
];

/** The three records of call `i`, as canonical JSON lines. */
function call(i, id) {
  const at = new Date(START + i * 1000).toISOString();
  const end = new Date(START + i * 1000 + 40).toISOString();
  const host = `h${Math.floor(i / 20_000)}`;
  const command = `bench.e${i % 100}/c${i % 10}`;
  const [outcome, reason] = OUTCOMES[i % OUTCOMES.length];
  const digest = `sha256:${id.replaceAll("-", "").repeat(2)}`;
  return (
    `${JSON.stringify({ actor: "claude-code", at, command, digest, host, inputsDigest: digest, invocationId: id, pid: 4242, preset: "agent", revisionId: `rev-${String(i % 7).padStart(26, "0")}`, subject: "alice@example.com", surface: i % 3 === 0 ? "cli" : "mcp", taskAuthorityRef: "task-2026-0001", type: "start" })}\n` +
    `${JSON.stringify({ host, invocationId: id, pgid: 5000 + (i % 1000), pid: 5000 + (i % 1000), startTime: String(1_000_000 + i), type: "process" })}\n` +
    `${JSON.stringify({ at: end, command, diagnostics: { droppedBytes: 0, stderrBytes: 12, stdoutBytes: 340 }, host, invocationId: id, outcome, reason, type: "final" })}\n`
  );
}

/**
 * A state directory whose journal archive holds about `bytes` of history.
 * Returns its environment, the oldest call's id, the times of the first and
 * last calls, and how many calls it holds.
 */
export async function history(bytes) {
  const root = join(tmpdir(), `rukh-bench-history-v${VERSION}-${bytes}`);
  const home = join(root, "home");
  const archive = join(home, "journal", "archive");
  const meta = join(root, "meta.json");
  if (!existsSync(meta)) {
    mkdirSync(archive, { recursive: true });
    await new StateDirectory(home).setConfig({ format: "rukh.owner/1" }).catch(() => {});
    let total = 0;
    let i = 0;
    let oldest;
    for (let seg = 1; total < bytes; seg++) {
      const fd = openSync(join(archive, `${String(seg).padStart(10, "0")}.jsonl`), "w", 0o600);
      let size = 0;
      const chunk = [];
      while (size < SEGMENT_BYTES - 4096) {
        const id = randomUUID();
        oldest ??= id;
        const text = call(i++, id);
        chunk.push(text);
        size += Buffer.byteLength(text);
      }
      writeSync(fd, chunk.join(""));
      closeSync(fd);
      total += size;
    }
    const info = { oldest, calls: i, first: new Date(START).toISOString() };
    const tmp = `${meta}.tmp`;
    const f = openSync(tmp, "w");
    writeSync(f, JSON.stringify(info));
    closeSync(f);
    renameSync(tmp, meta);
  }
  const { readFileSync } = await import("node:fs");
  const info = JSON.parse(readFileSync(meta, "utf8"));
  return { ...info, root: home, env: cleanEnv({ RUKH_HOME: home }) };
}
