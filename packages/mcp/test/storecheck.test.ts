import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StateDirectory } from "@rukh/profile";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cleanup, MODERN_META, makeState, RawSession, toolNameOf } from "./_helpers.js";

// An attacker (or an accident) edits a stored program while a long-running
// MCP host serves it: the next call runs nothing, and a new host's tool list
// names the package instead of failing opaquely.
let root: string;
let work: string;
let state: StateDirectory;

beforeAll(async () => {
  ({ root, work, state } = await makeState());
});
afterAll(() => cleanup(work));

it("an edited stored program never runs: the next call is execution_failed/store_corrupt, and a new host's list names the package", async () => {
  const s = new RawSession(root);
  try {
    const greet = await toolNameOf(state, "fx.main/greet");
    const call = (id: string) =>
      s.request(id, "tools/call", { name: greet, arguments: { name: "Ada" } });
    expect((await call("before")).result.structuredContent.outcome).toBe("succeeded");

    const active = (await state.activeRevisionId())!;
    const digest = (await state.readRevision(active)).extensions.find(
      (e) => e.id === "fx.main",
    )!.digest;
    const program = join(root, "store", digest, "bin", "commands.mjs");
    const marker = join(work, "the-edited-program-ran");
    chmodSync(program, 0o644);
    writeFileSync(
      program,
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\n${readFileSync(program, "utf8")}`,
    );

    const after = await call("after");
    expect(after.result.isError).toBe(true);
    expect(after.result.structuredContent).toMatchObject({
      outcome: "execution_failed",
      reason: "store_corrupt",
    });
    expect(existsSync(marker)).toBe(false);

    const fresh = new RawSession(root);
    try {
      fresh.send({ jsonrpc: "2.0", id: "l", method: "tools/list", params: { _meta: MODERN_META } });
      const listed = await fresh.reply("l");
      expect(listed.error.code).toBe(-32001);
      expect(listed.error.data).toEqual({ reason: "store_corrupt" });
      expect(listed.error.message).toMatch(
        /^the installed tools cannot be listed: fx\.main@1\.0\.0: stored package [0-9a-f]{64}: "bin\/commands\.mjs" has been modified; install its package again to restore it, or remove fx\.main$/,
      );
    } finally {
      await fresh.close();
    }
  } finally {
    await s.close();
  }
});
