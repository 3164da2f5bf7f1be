import { describe, expect, it } from "vitest";
import { listTools, ProfileError, StateDirectory, visibleTools } from "../../src/index.js";
import { PAGE_MAX_BYTES, PAGE_MAX_TOOLS } from "../../src/model/_limits.js";
import { checkToolSizes, indexedTool } from "../../src/projection/_tool-projection.js";
import { makePackage, ownerConfig, tempDir, textTool, thrown } from "../_helpers.js";

// The page bounds of tools/list, reached for real: tools big enough that 32
// of them exceed 1 MiB, and the guard that keeps any one tool within a page.
const work = tempDir();

/** A command whose input enum makes its tool about 40 KB. */
function bigCommand(ext: string, c: number) {
  const values = Array.from({ length: 256 }, (_, v) => `${ext}-${c}-value-${v}-${"x".repeat(120)}`);
  return {
    id: `c${c}`,
    path: [ext, `c${c}`],
    summary: `Command ${c}`,
    inputs: [{ id: "choice", type: "enum", summary: "One of many", values, required: true }],
    ...textTool(),
  };
}

describe("tools/list pages", () => {
  it("end before 32 tools when 32 would pass 1 MiB, and every tool is listed once", async () => {
    const ids = Array.from({ length: 7 }, (_, i) => `acme.big${i}`);
    const root = tempDir("rukh-pages-");
    const home = new StateDirectory(root);
    await home.setConfig(
      ownerConfig({
        exposure: { extensions: ids },
        presets: {
          default: {
            commands: ids.map((id) => `${id}/*`),
            actions: [],
            resources: [],
            deadlineMs: 1000,
            maxConcurrency: 2,
            enforcement: "strict",
          },
        },
        defaultPreset: "default",
      }) as never,
    );
    const sources = [];
    for (const id of ids)
      sources.push(
        await makePackage(work, {
          format: "rukh.extension/2",
          id,
          version: "1.0.0",
          publisher: "acme",
          commands: Array.from({ length: 6 }, (_, c) => bigCommand(id.slice(5), c)),
        }),
      );
    await home.apply(sources.map((source) => ({ op: "install", source })));
    const projection = await home.projection();
    const all = visibleTools(projection, "default");
    expect(all.length).toBe(42);
    const cursorKey = await home.cursorKey();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = listTools(projection, {
        preset: "default",
        cursorKey,
        ...(cursor !== undefined && { cursor }),
      });
      const bytes = Buffer.byteLength(JSON.stringify({ tools: page.tools }));
      expect(bytes).toBeLessThanOrEqual(PAGE_MAX_BYTES);
      expect(page.tools.length).toBeGreaterThan(0);
      if (page.nextCursor !== undefined) {
        // The byte bound, not the count, ended this page.
        expect(page.tools.length).toBeLessThan(PAGE_MAX_TOOLS);
        expect(bytes).toBeGreaterThan(PAGE_MAX_BYTES / 2);
      }
      seen.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(all.map((t) => t.name));
  });

  it("refuse a tool that cannot fit one page (descriptor limits keep packages far below it)", () => {
    const command = {
      ...indexableCommand(),
      description: "d".repeat(PAGE_MAX_BYTES),
    };
    const caught = thrown(() =>
      checkToolSizes(
        ownerConfig() as never,
        [indexedTool(command as never)],
        () => command as never,
      ),
    );
    expect(caught).toBeInstanceOf(ProfileError);
    expect((caught as ProfileError).code).toBe("tool_too_large");
    expect((caught as ProfileError).message).toContain("must fit one 1048576-byte page");
  });
});

/** A command as the profile holds it after validation, built directly (no descriptor limits). */
function indexableCommand() {
  return {
    identity: "acme.files/huge",
    id: "huge",
    path: ["huge"],
    aliases: [],
    summary: "Huge",
    inputs: [],
    requests: { actions: [], resources: [] },
    ...textTool(),
  };
}
