import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StateDirectory } from "@rukh/profile";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cleanup, makeState, RawSession, toolNameOf } from "../_helpers.js";

// An attacker (or an accident) edits a stored program while a long-running
// MCP host serves it: the next call runs nothing, and a new host's tool list
// lists what was published and refuses the call, naming the package.
let root: string;
let work: string;
let state: StateDirectory;

beforeAll(async () => {
  ({ root, work, state } = await makeState());
});
afterAll(() => cleanup(work));

it("an edited stored program never runs: the next call is execution_failed/store_corrupt, in this host and in a new one", async () => {
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

    // A new host lists what was published (its catalog, bound to the
    // revision) and refuses the call just the same: nothing runs.
    const fresh = new RawSession(root);
    try {
      fresh.send({ jsonrpc: "2.0", id: "l", method: "tools/list", params: { _meta: MODERN_META } });
      const listed = await fresh.reply("l");
      expect(listed.result.tools.map((t: { name: string }) => t.name)).toContain(greet);
      fresh.send({
        jsonrpc: "2.0",
        id: "c",
        method: "tools/call",
        params: { name: greet, arguments: { name: "Ada" }, _meta: MODERN_META },
      });
      const refused = (await fresh.reply("c")).result;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({
        outcome: "execution_failed",
        reason: "store_corrupt",
      });
      const diagnostic = JSON.parse(refused.content.at(-1).text).message;
      expect(diagnostic).toMatch(
        /nothing was run \(fx\.main@1\.0\.0: stored package [0-9a-f]{64}: "bin\/commands\.mjs" has been modified; install its package again to restore it, or remove fx\.main\)$/,
      );
      expect(existsSync(marker)).toBe(false);
    } finally {
      await fresh.close();
    }
  } finally {
    await s.close();
  }
});
