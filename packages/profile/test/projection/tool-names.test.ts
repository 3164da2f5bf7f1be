import { parseDescriptor } from "@rukh/descriptor";
import { sha256Hex } from "@rukh/json";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type OwnerConfig,
  resolveTool,
  StateDirectory,
  TOOL_NAME_MAX_LENGTH,
} from "../../src/index.js";
import {
  CLIENT_FIT_DIGITS,
  clientFitName,
  digitsNeeded,
  fingerprintOf,
  revisionTag,
} from "../../src/projection/_tool-names.js";
import { buildProjection } from "../../src/projection/_tool-projection.js";
import { makePackage, ownerConfig, tempDir, textExecute, toolMachine } from "../_helpers.js";

// Client-fit names (`toolNames: "compact"`): what a client that prefixes
// names and hands them to a model API can take, telling two extensions'
// commands apart, and never reaching another tool when stale.
const work = tempDir();
const CLIENT_PREFIX = "mcp__rukh__";

function ext(id: string, commands: readonly string[]): object {
  return {
    format: "rukh.extension/2",
    id,
    version: "1.0.0",
    publisher: "acme",
    commands: commands.map((c, i) => ({
      id: c,
      path: [id.replaceAll(".", "-"), `c${i}`],
      summary: `Run ${c}`,
      execute: textExecute(),
      machine: toolMachine(),
    })),
  };
}

const config = (over: Record<string, unknown> = {}) =>
  ownerConfig({
    exposure: { extensions: ["acme.tools", "acme.x.tools", "acme.files"] },
    presets: {
      default: {
        commands: ["acme.tools/*", "acme.x.tools/*", "acme.files/*"],
        actions: [],
        resources: [],
        deadlineMs: 1000,
        maxConcurrency: 2,
        enforcement: "strict",
      },
    },
    mcp: { toolNames: "compact" },
    ...over,
  });

const LONG = "a-really-long-command-identifier-that-goes-on";

describe("client-fit tool names", () => {
  it("keep the extension's last id word and the command, and fit 64 characters behind mcp__<server>__", async () => {
    const h = new StateDirectory(tempDir("rukh-names-"));
    await h.setConfig(config() as never);
    await h.install(await makePackage(work, ext("acme.tools", ["greet"])));
    await h.install(await makePackage(work, ext("acme.x.tools", ["greet"])));
    const r = await h.install(await makePackage(work, ext("acme.files", ["count_lines", LONG])));
    const names = new Map(r.projection.tools.map((t) => [t.identity, t.name]));
    const pattern = (slug: string) => new RegExp(`^${slug}__[g-z]{1,4}[0-9a-f]{4,12}$`);
    expect(names.get("acme.tools/greet")).toMatch(pattern("tools_greet"));
    expect(names.get("acme.x.tools/greet")).toMatch(pattern("tools_greet"));
    expect(names.get("acme.tools/greet")).not.toBe(names.get("acme.x.tools/greet"));
    expect(names.get("acme.files/count_lines")).toMatch(pattern("files_count_lines"));
    // The command is kept whole as long as it fits; the extension's word gives way.
    expect(names.get(`acme.files/${LONG}`)).toMatch(pattern(LONG.slice(0, 24)));
    for (const name of names.values()) {
      expect(name.length).toBeLessThanOrEqual(TOOL_NAME_MAX_LENGTH.compact);
      expect(`${CLIENT_PREFIX}${name}`.length).toBeLessThanOrEqual(64);
      expect(resolveTool(r.projection, name)).toBeDefined();
    }
    expect(TOOL_NAME_MAX_LENGTH.compact).toBe(42);
  });

  it("carry as few fingerprint digits as the revision needs to tell its tools apart, checked at publication", () => {
    const fp = (head: string) => head.padEnd(64, "0");
    expect(digitsNeeded([["a", fp("1234")]])).toEqual({ digits: CLIENT_FIT_DIGITS.min });
    expect(
      digitsNeeded([
        ["a", fp("1234")],
        ["b", fp("1234")],
      ]),
    ).toEqual({ digits: 4 });
    expect(
      digitsNeeded([
        ["a", fp("abcd1")],
        ["a", fp("abcd2")],
        ["a", fp("9")],
      ]),
    ).toEqual({ digits: 5 });
    // Beyond the most digits a name may hold, the two entries are named.
    expect(
      digitsNeeded([
        ["a", fp("0123456789ab1")],
        ["b", fp("0")],
        ["a", fp("0123456789ab2")],
      ]),
    ).toEqual({ clash: [0, 2] });
    expect(CLIENT_FIT_DIGITS).toEqual({ min: 4, max: 12 });
  });

  it("tag each revision in letters hex digits never use, so a name belongs to one revision only", () => {
    expect(["g", "h", "z"].map((_, i) => revisionTag([0, 1, 19][i]!))).toEqual(["g", "h", "z"]);
    expect(revisionTag(20)).toBe("hg");
    expect(revisionTag(159_999)).toBe("zzzz");
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 159_999 }),
        fc.integer({ min: 1, max: 159_999 }),
        fc.stringMatching(/^[0-9a-f]{4,12}$/),
        fc.stringMatching(/^[0-9a-f]{4,12}$/),
        (s1, s2, h1, h2) => {
          expect(revisionTag(s1)).toMatch(/^[g-z]{1,4}$/);
          if (s1 !== s2) expect(`${revisionTag(s1)}${h1}`).not.toBe(`${revisionTag(s2)}${h2}`);
        },
      ),
    );
  });

  it("make a stale name unknown even where its digits are another tool's in the next revision", () => {
    // Two extensions' greet share a slug. Find a next revision in which the
    // other greet's first four digits are exactly those the first greet had:
    // digits alone would send the stale name to the other extension's code.
    const parsed = [ext("acme.tools", ["greet"]), ext("acme.x.tools", ["greet"])].map((d) => {
      const p = parseDescriptor(JSON.stringify(d));
      if (!p.ok) throw new Error(JSON.stringify(p.issues));
      return { descriptor: p.value };
    });
    const owner = config() as unknown as OwnerConfig;
    const [x, y] = ["acme.tools/greet", "acme.x.tools/greet"];
    const r1 = "1".repeat(64);
    const wanted = fingerprintOf("acme-test", r1)(x!).slice(0, 4);
    let r2 = "";
    for (let i = 0; ; i++) {
      r2 = sha256Hex(`revision ${i}`);
      const fp = fingerprintOf("acme-test", r2);
      if (fp(y!).startsWith(wanted) && !fp(x!).startsWith(wanted)) break;
    }
    const projection = (revisionId: string, sequence: number) =>
      buildProjection(
        { revisionId, sequence, commandGeneration: 0, config: owner, devExtensions: [] },
        parsed,
        { commands: [], groups: [] },
      );
    const before = projection(r1, 7);
    const after = projection(r2, 8);
    const stale = before.tools.find((t) => t.identity === x)!.name;
    const other = after.tools.find((t) => t.identity === y)!.name;
    expect(stale.slice(-4)).toBe(other.slice(-4));
    // The tag is all that tells them apart, and it does.
    expect(stale.replace(`__${revisionTag(7)}`, `__${revisionTag(8)}`)).toBe(other);
    expect(resolveTool(after, stale)).toBeUndefined();
    for (const t of before.tools) expect(resolveTool(after, t.name)).toBeUndefined();
  });

  it("never give two endpoints' namespaces one name: their digits are chosen together", async () => {
    const h = new StateDirectory(tempDir("rukh-names-"));
    const endpoints = {
      a: { preset: "default", toolNames: "compact", namespace: "ns-a" },
      b: { preset: "default", toolNames: "compact", namespace: "ns-b" },
    };
    await h.setConfig(config({ mcp: { toolNames: "compact", endpoints } }) as never);
    const r = await h.install(await makePackage(work, ext("acme.tools", ["greet", "wave"])));
    const names = await Promise.all(
      ["acme-test", "ns-a", "ns-b"].map(async (namespace) =>
        (await h.projection(r.revisionId, { namespace, style: "compact" })).tools.map(
          (t) => t.name,
        ),
      ),
    );
    expect(new Set(names.flat()).size).toBe(6);
  });

  it("name a tool from its naming, revision and sequence alone, as projections do", async () => {
    const h = new StateDirectory(tempDir("rukh-names-"));
    await h.setConfig(config() as never);
    const r = await h.install(await makePackage(work, ext("acme.tools", ["greet", "wave"])));
    for (const t of r.projection.tools)
      expect(t.name).toBe(
        clientFitName({
          namespace: "acme-test",
          revisionId: r.revisionId,
          sequence: r.revision.sequence,
          identity: t.identity,
          digits: 4,
        }),
      );
    // A policy-only publication renames every tool; the old names are unknown.
    const next = await h.setConfig(config({ brand: "acme2" }) as never);
    for (const t of r.projection.tools)
      expect(resolveTool(next.projection, t.name)).toBeUndefined();
  });
});
