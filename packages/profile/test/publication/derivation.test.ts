// A publication carries what its base already held over from the base's
// catalog and route cache, and derives only what it installs. Whatever the
// sequence of changes, the files it writes must be exactly what a derivation
// from every verified package gives: `checkRouteCache` (what `doctor` runs)
// compares them byte for byte.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CommandSpec, parseDescriptor } from "@rukh/descriptor";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProfileError, StateDirectory } from "../../src/index.js";
import { clientFitName, fingerprintOf } from "../../src/projection/_tool-names.js";
import { indexedTool } from "../../src/projection/_tool-projection.js";
import { descriptor, makePackage, ownerConfig, tempDir } from "../_helpers.js";

const work = tempDir();
const IDS = ["acme.e0", "acme.e1", "acme.e2", "acme.e3"];

/** Extension `i` in one of three shapes: groups (one shared), aliases, a command that is no tool. */
function shape(i: number, variant: number, version: number): object {
  const g = `g${i}`;
  const commands = [
    { id: "a", path: [g, "a"] },
    { id: "b", path: ["shared", `e${i}b`], aliases: [[`e${i}-b`]] },
    ...(variant >= 1 ? [{ id: "c", path: [g, "c"], eligible: false }] : []),
    ...(variant === 2 ? [{ id: "d", path: [g, "deep", "d"], aliases: [[`e${i}d`]] }] : []),
  ];
  return {
    ...descriptor(IDS[i]!, "acme", commands),
    version: `1.0.${version}`,
    groups: [
      { path: [g], summary: `Group ${i} v${variant}` },
      ...(i % 2 === 0 ? [{ path: ["shared"], summary: `Shared, as e${i} says` }] : []),
    ],
  };
}

const EXPOSURES = [
  { extensions: IDS },
  { extensions: ["acme.e0", "acme.e2"] },
  { extensions: ["acme.e1"], commands: ["acme.e3/a"] },
];

type Op =
  | { op: "install"; i: number; variant: number }
  | { op: "remove" | "disable" | "enable"; i: number }
  | { op: "expose"; n: number }
  | { op: "preset" };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant("install" as const), i: fc.nat(3), variant: fc.nat(2) }),
  },
  fc.record({
    op: fc.constantFrom("remove" as const, "disable" as const, "enable" as const),
    i: fc.nat(3),
  }),
  fc.record({ op: fc.constant("expose" as const), n: fc.nat(2) }),
  fc.record({ op: fc.constant("preset" as const) }),
);

async function config(h: StateDirectory, over: Record<string, unknown>) {
  const active = await h.activeRevisionId();
  const current = active === null ? ownerConfig() : (await h.readRevision(active)).config;
  return h.setConfig({ ...current, ...over } as never);
}

describe("publication derivation", () => {
  it("writes, for any sequence of changes, the files a derivation from the verified store writes", async () => {
    let versions = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 9 }), async (ops) => {
        const h = new StateDirectory(tempDir("rukh-derive-"));
        await h.setConfig(ownerConfig({ exposure: EXPOSURES[0] }) as never);
        for (const o of ops) {
          try {
            if (o.op === "install")
              await h.install(await makePackage(work, shape(o.i, o.variant, ++versions)));
            else if (o.op === "expose") await config(h, { exposure: EXPOSURES[o.n] });
            else if (o.op === "preset") await config(h, { defaultPreset: "narrow" });
            else await h[o.op](IDS[o.i]!);
          } catch (e) {
            // Changes that make no sense in the state reached are refused, nothing else.
            if (!(e instanceof ProfileError) || e.code !== "unknown_extension") throw e;
          }
          // A directory object that remembers nothing derives from the store alone.
          expect(await new StateDirectory(h.root).checkRouteCache()).toBe("matches");
        }
      }),
      { numRuns: 12 },
    );
  });

  it("writes a new package's part once; later revisions refer to it, and a damaged one is named until repaired", async () => {
    const h = new StateDirectory(tempDir("rukh-derive-"));
    await h.setConfig(ownerConfig({ exposure: EXPOSURES[0] }) as never);
    const first = await h.install(await makePackage(work, shape(0, 2, 1)));
    const digest = first.revision.extensions[0]!.digest;
    const part = join(h.root, "revisions", "parts", `${digest}.json`);
    const text = readFileSync(part, "utf8");
    const written = statSync(part).mtimeMs;
    await h.install(await makePackage(work, shape(1, 0, 2)));
    // Carried over: the part is neither read nor written again.
    expect(statSync(part).mtimeMs).toBe(written);
    expect(readdirSync(join(h.root, "revisions", "parts"))).toHaveLength(2);
    writeFileSync(part, text.replace('"Group 0 v2"', '"Group 0 vX"'));
    await h.install(await makePackage(work, shape(2, 0, 3)));
    // The next revision refers to the same part: doctor's check names it, and repair restores it.
    expect(await new StateDirectory(h.root).checkRouteCache()).toBe("differs");
    expect(await h.checkRouteCache({ repair: true })).toBe("rewritten");
    expect(readFileSync(part, "utf8")).toBe(text);
    expect(await new StateDirectory(h.root).checkRouteCache()).toBe("matches");
  });

  it("derives everything again when a bucket of the base route cache fails its digest: the publication still lands", async () => {
    const h = new StateDirectory(tempDir("rukh-derive-"));
    await h.setConfig(ownerConfig({ exposure: EXPOSURES[0] }) as never);
    await h.install(await makePackage(work, shape(0, 2, 1)));
    const base = (await h.activeRevisionId())!;
    const file = join(h.root, "revisions", `${base}.routes.json`);
    const text = readFileSync(file, "utf8");
    const nl = text.indexOf("\n");
    // The header (bound to the revision) stays; a bucket changes.
    writeFileSync(file, text.slice(0, nl) + text.slice(nl).replace('"Run a"', '"Run z"'));
    await h.install(await makePackage(work, shape(1, 0, 2)));
    expect(await new StateDirectory(h.root).checkRouteCache()).toBe("matches");
  });

  it("checks a carried extension's routes against the new one's: conflicts are found without its descriptor", async () => {
    const h = new StateDirectory(tempDir("rukh-derive-"));
    await h.setConfig(ownerConfig({ exposure: EXPOSURES[0] }) as never);
    await h.install(await makePackage(work, shape(0, 2, 1)));
    const clash = descriptor("acme.e1", "acme", [{ id: "q", path: ["g0", "a"] }]);
    const refused = await h.install(await makePackage(work, clash)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProfileError);
    expect((refused as ProfileError).code).toBe("route_conflict");
    const alias = descriptor("acme.e1", "acme", [{ id: "x", aliases: [["e0d"]] }]);
    expect(
      ((await h.install(await makePackage(work, alias)).catch((e: unknown) => e)) as ProfileError)
        .code,
    ).toBe("route_conflict");
  });

  it("indexes each tool with the size a page gives it, less its name, and its title", async () => {
    const h = new StateDirectory(tempDir("rukh-derive-"));
    await h.setConfig(ownerConfig({ exposure: EXPOSURES[0] }) as never);
    const commands = new Map<string, CommandSpec>();
    for (const [i, v] of [
      [0, 2],
      [1, 1],
      [2, 0],
    ] as const) {
      const d = shape(i, v, i + 1);
      const parsed = parseDescriptor(JSON.stringify(d));
      if (!parsed.ok) throw new Error("the test descriptor is invalid");
      for (const c of parsed.value.commands) commands.set(c.identity, c);
      await h.install(await makePackage(work, d));
    }
    for (const style of ["full", "compact"]) {
      await config(h, { mcp: { toolNames: style } });
      const projection = await new StateDirectory(h.root).projection();
      expect(projection.tools.length).toBe(7);
      for (const tool of projection.tools) {
        const [identity, bytes, title] = indexedTool(commands.get(tool.identity)!);
        expect([identity, title]).toEqual([tool.identity, tool.title]);
        expect(bytes + tool.name.length).toBe(Buffer.byteLength(JSON.stringify(tool)) + 1);
      }
    }
  });
});

describe("the tool-name check at publication", () => {
  it("computes client-fit names from the same fingerprints as full names", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.integer({ min: 4, max: 12 }),
        (ns, ext, cmd, digits) => {
          const identity = `${ext.replace(/\//g, "")}/${cmd}`;
          const rev = "a".repeat(64);
          const fp = fingerprintOf(ns, rev)(identity);
          expect(
            clientFitName({
              namespace: ns,
              revisionId: rev,
              sequence: 1,
              identity,
              digits,
            }).endsWith(`__h${fp.slice(0, digits)}`),
          ).toBe(true);
        },
      ),
    );
  });
});
