import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testExtension } from "../src/index.js";

// The harness runs a real package through the real core: a program on the
// vendored runtime, a throw-away key, a state directory of its own.
const work = mkdtempSync(join(tmpdir(), "rukh-harness-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const runtime = dirname(createRequire(import.meta.url).resolve("@rukh/ipc/runtime"));

const command = (id: string, result: object, inputs: object[] = []) => ({
  id,
  path: ["hx", id],
  summary: `The ${id} command`,
  inputs,
  execute: { mapping: "managed", program: "bin/main.mjs", runtime: "node", result },
  machine: { eligible: true, interaction: "none", requiredFeatures: ["rukh.command-result/1"] },
});

function writePackage(): string {
  const dir = mkdtempSync(join(work, "pkg-"));
  writeFileSync(
    join(dir, "rukh-extension.json"),
    JSON.stringify({
      format: "rukh.extension/2",
      id: "jane.hx",
      version: "1.2.3",
      publisher: "jane",
      commands: [
        command("greet", { kind: "text" }, [
          { id: "name", type: "string", maxLength: 16, required: true, summary: "Who" },
        ]),
        command("count", {
          kind: "structured",
          schema: {
            type: "object",
            properties: { n: { type: "integer" } },
            required: ["n"],
            additionalProperties: false,
          },
        }),
        command("wrong", {
          kind: "structured",
          schema: {
            type: "object",
            properties: { ok: { type: "boolean" } },
            required: ["ok"],
            additionalProperties: false,
          },
        }),
      ],
    }),
  );
  mkdirSync(join(dir, "bin"));
  writeFileSync(
    join(dir, "bin", "main.mjs"),
    `import { runCommandProcess, structuredResult, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: {
  "jane.hx/greet": (ctx) => textResult("Hello, " + ctx.inputs.name + "!"),
  "jane.hx/count": async (ctx) => {
    for (let i = 1; i <= 3; i++) { ctx.progress(i, 3, "step " + i); await new Promise((r) => setTimeout(r, 120)); }
    return structuredResult({ n: 3 });
  },
  "jane.hx/wrong": () => structuredResult({ ok: "yes" }),
} });
`,
  );
  cpSync(runtime, join(dir, "node_modules", "@rukh", "ipc"), { recursive: true });
  return dir;
}

describe("testExtension", () => {
  it("installs an unsigned package's copy and runs its commands through the core", async () => {
    const dir = writePackage();
    const before = readdirSync(dir).sort();
    const h = await testExtension(dir, { tmpdir: work });
    try {
      expect(h).toMatchObject({ id: "jane.hx", version: "1.2.3" });
      expect(h.commands).toEqual(["jane.hx/greet", "jane.hx/count", "jane.hx/wrong"]);
      const greet = await h.call("greet", { name: "Ada" });
      expect(greet).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "text", text: "Hello, Ada!" },
      });
      expect(greet.diagnostic).toBeUndefined();
      // By identity and as MCP: the same.
      const viaMcp = await h.call("jane.hx/greet", { name: "Bo" }, { surface: "mcp" });
      expect(viaMcp.commandResult).toEqual({ kind: "text", text: "Hello, Bo!" });

      const counted = await h.call("count");
      expect(counted.commandResult).toEqual({ kind: "structured", data: { n: 3 } });
      expect(counted.progress.map((p) => p.progress)).toEqual([1, 2, 3]);

      const bad = await h.call("greet", { name: "x".repeat(17) });
      expect(bad).toMatchObject({ outcome: "rejected", reason: "invalid_input" });
      expect(bad.diagnostic?.issues?.[0]).toMatchObject({ path: "/name" });

      const wrong = await h.call("wrong");
      expect(wrong).toMatchObject({ outcome: "execution_failed", reason: "invalid_result" });
      expect(wrong.diagnostic?.issues).toEqual([
        expect.objectContaining({ path: "/data/ok", code: "type_mismatch" }),
      ]);
      await expect(h.call("nope")).rejects.toThrow(/declares no command "jane.hx\/nope"/);
      // The journal is the harness's own.
      expect(existsSync(join(h.stateDir, "journal"))).toBe(true);
    } finally {
      await h.close();
    }
    // The author's directory was only read; the harness's directory is gone.
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(existsSync(dirname(h.stateDir))).toBe(false);
  });

  it("refuses what an install refuses, and leaves nothing behind", async () => {
    const dir = writePackage();
    symlinkSync("/etc/passwd", join(dir, "bin", "passwd"));
    const left = readdirSync(work).length;
    await expect(testExtension(dir, { tmpdir: work })).rejects.toMatchObject({
      code: "link_not_allowed",
    });
    expect(readdirSync(work)).toHaveLength(left);
    const broken = writePackage();
    writeFileSync(join(broken, "rukh-extension.json"), '{"format": "rukh.extension/2",');
    await expect(testExtension(broken, { tmpdir: work })).rejects.toThrow(
      /rukh-extension\.json is not a valid descriptor: line 1:\d+/,
    );
    expect(readdirSync(work)).toHaveLength(left + 1);
  });
});
