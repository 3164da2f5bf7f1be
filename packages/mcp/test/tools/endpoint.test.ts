import { readJournal } from "@rukh/core";
import { toolName } from "@rukh/profile/projection";
import { commandsDescriptor } from "@rukh/testkit";
import { makeExtension } from "@rukh/testkit/extension";
import { describe, expect, it } from "vitest";
import { COMMANDS, PROGRAMS, RawSession, toolNameOf, useState, type Wire } from "../_helpers.js";

// A host started as an endpoint: its own tool naming and per-call deadline,
// over a real stdio process.
const at = useState();

describe("a host with an endpoint's naming", () => {
  it("lists and runs its own names only, and a new revision makes them unknown", async () => {
    const s = new RawSession(at.root, "default", { RUKH_TEST_NAMING: "acme-endpoint:full" });
    try {
      const rid = (await at.state.activeRevisionId())!;
      const listed = await s.request("l1", "tools/list");
      const names: string[] = listed.result.tools.map((t: Wire) => t.name);
      expect(names.length).toBeGreaterThan(0);
      const greet = toolName("acme-endpoint", rid, "fx.main/greet");
      expect(names).toContain(greet);
      const projection = await at.state.projection(rid);
      for (const t of projection.tools)
        if (names.includes(toolName("acme-endpoint", rid, t.identity)))
          expect(names).not.toContain(t.name);

      s.call("c1", greet, { name: "ep" });
      expect((await s.reply("c1")).result.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { text: "hello ep" },
      });
      // The profile's own name of the same command is no tool of this endpoint.
      const before = (await readJournal(at.root)).records.length;
      s.call("c2", await toolNameOf(at.state, "fx.main/greet"), { name: "x" });
      expect((await s.reply("c2")).error).toEqual({ code: -32602, message: "Unknown tool" });

      const next = await at.state.install(
        await makeExtension(at.work, commandsDescriptor("fx.main", "3.0.0", COMMANDS), PROGRAMS),
      );
      s.call("c3", greet, { name: "x" });
      expect((await s.reply("c3")).error).toEqual({ code: -32602, message: "Unknown tool" });
      expect((await readJournal(at.root)).records.length).toBe(before);
      s.call("c4", toolName("acme-endpoint", next.revisionId, "fx.main/greet"), {
        name: "new",
      });
      expect((await s.reply("c4")).result.structuredContent.outcome).toBe("succeeded");
    } finally {
      await s.close();
    }
  });
});

describe("a host with an endpoint's deadline", () => {
  it("cancels a call at the endpoint's deadline, shorter than the preset's", async () => {
    const s = new RawSession(at.root, "default", { RUKH_TEST_DEADLINE_MS: "1200" });
    try {
      const t0 = Date.now();
      s.call("d", await toolNameOf(at.state, "fx.main/slow"), { wait_ms: 15_000 });
      const d = await s.reply("d");
      // The preset allows 20 s: only the endpoint's deadline ends it this soon.
      expect(Date.now() - t0).toBeLessThan(6_000);
      expect(d.result.structuredContent).toMatchObject({
        outcome: "cancelled",
        reason: "deadline",
      });
    } finally {
      await s.close();
    }
  });
});
