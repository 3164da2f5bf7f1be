import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkVersionChange } from "../../src/config/_trust.js";
import { RESERVED_CLI_WORDS, validateOwnerConfig } from "../../src/config.js";
import { compareVersions, ProfileError, StateDirectory } from "../../src/index.js";
import {
  type CommandDef,
  descriptor,
  FIXTURE_PUB,
  makePackage,
  otherKey,
  ownerConfig,
  tempDir,
} from "../_helpers.js";

const work = tempDir();
const evil = otherKey();

const versioned = (
  id: string,
  version: string,
  publisher = "acme",
  commands: CommandDef[] = [{ id: "x" }],
) => ({
  ...descriptor(id, publisher, commands),
  version,
});

async function home(over: Record<string, unknown> = {}): Promise<StateDirectory> {
  const h = new StateDirectory(tempDir("rukh-trust-"));
  await h.setConfig(
    ownerConfig({
      trustedPublishers: [
        { id: "acme", publicKey: FIXTURE_PUB },
        { id: "evil", publicKey: evil.publicKey },
      ],
      ...over,
    }) as never,
  );
  return h;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ProfileError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return "accepted";
}

describe("versions only go up", () => {
  it.each([
    ["1.0.0", "1.0.1", -1],
    ["1.0.1", "1.0.0", 1],
    ["1.2.3", "1.2.3+build.7", 0],
    ["1.0.0-rc.1", "1.0.0", -1],
    ["1.0.0-alpha", "1.0.0-alpha.1", -1],
    ["1.0.0-alpha.beta", "1.0.0-beta", -1],
    ["1.0.0-beta.2", "1.0.0-beta.11", -1],
    ["1.0.0-rc.1", "1.0.0-1", 1],
    ["10.0.0", "9.99.99", 1],
    ["18446744073709551616.0.0", "18446744073709551615.0.0", 1],
  ])("%s vs %s", (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });

  it("refuses a downgrade unless allowed, and the same version with other content always", async () => {
    const h = await home();
    const v101 = await makePackage(work, versioned("acme.tools", "1.0.1"));
    const v100 = await makePackage(work, versioned("acme.tools", "1.0.0"));
    const other101 = await makePackage(
      work,
      versioned("acme.tools", "1.0.1", "acme", [{ id: "y" }]),
    );
    await h.install(v101);
    expect(await refusal(h.install(v100))).toBe(
      "downgrade: acme.tools 1.0.0 is lower than the installed 1.0.1; pass --allow-downgrade to install it anyway",
    );
    expect(await refusal(h.install(other101))).toMatch(
      /^version_reused: acme\.tools 1\.0\.1 is installed with other content \([0-9a-f]{12}, now [0-9a-f]{12}\)/,
    );
    const active = await h.activeRevisionId();
    expect((await h.readRevision(active!)).extensions[0]!.version).toBe("1.0.1");
    const down = await h.apply([{ op: "install", source: v100, allowDowngrade: true }]);
    expect(down.revision.extensions[0]!.version).toBe("1.0.0");
    // The very same package again is not a reuse: nothing changes.
    expect((await h.install(v100)).published).toBe(false);
  });

  it("accepts an install over an installed version only upward, with the same content, or with leave to downgrade for a lower version or a rebuild", () => {
    // Versions that often share a precedence: few cores, pre-releases and build metadata.
    const ident = fc.constantFrom("0", "1", "2", "rc", "b", "001");
    const version = fc
      .record({
        core: fc.constantFrom("1.0.0", "1.0.1", "2.0.0"),
        pre: fc.option(fc.array(ident, { minLength: 1, maxLength: 2 }), { nil: undefined }),
        build: fc.option(fc.array(ident, { minLength: 1, maxLength: 2 }), { nil: undefined }),
      })
      .map(
        ({ core, pre, build }) =>
          `${core}${pre ? `-${pre.join(".")}` : ""}${build ? `+${build.join(".")}` : ""}`,
      )
      // A numeric pre-release identifier may not have a leading zero (build metadata may).
      .filter((v) => !/-(.*\.)?0\d/.test(v.split("+")[0]!));
    const digest = fc.constantFrom("a".repeat(64), "b".repeat(64));
    fc.assert(
      fc.property(version, digest, version, digest, fc.boolean(), (pv, pd, nv, nd, leave) => {
        const order = compareVersions(nv, pv);
        const sameRelease = pv.split("+")[0] === nv.split("+")[0];
        // Build metadata never orders: the same release, whatever its build, has one precedence.
        expect(order === 0).toBe(sameRelease);
        let code: string | undefined;
        try {
          checkVersionChange(
            "acme.tools",
            { version: pv, digest: pd },
            { version: nv, digest: nd },
            leave,
          );
        } catch (e) {
          code = (e as ProfileError).code;
        }
        const accepted =
          order > 0 || (order < 0 && leave) || (order === 0 && (pd === nd || (leave && pv !== nv)));
        expect(code === undefined, `${pv} (${pd[0]}) → ${nv} (${nd[0]}), leave ${leave}`).toBe(
          accepted,
        );
        if (!accepted) expect(code).toBe(order < 0 ? "downgrade" : "version_reused");
      }),
      { numRuns: 2_000, seed: 3601 },
    );
  });

  it("refuses a rebuild of the same precedence (other build metadata, other content) unless allowed", async () => {
    const h = await home();
    const v101 = await makePackage(work, versioned("acme.tools", "1.0.1"));
    const rebuild = await makePackage(
      work,
      versioned("acme.tools", "1.0.1+rebuild", "acme", [{ id: "old" }]),
    );
    await h.install(v101);
    expect(await refusal(h.install(rebuild))).toMatch(
      /^version_reused: acme\.tools 1\.0\.1\+rebuild has the same precedence as the installed 1\.0\.1 \(build metadata does not order versions\) but other content \([0-9a-f]{12}, now [0-9a-f]{12}\): it is a same-precedence rebuild, not an upgrade; pass --allow-downgrade to replace the installed 1\.0\.1 with it$/,
    );
    const active = await h.activeRevisionId();
    expect((await h.readRevision(active!)).extensions[0]!.version).toBe("1.0.1");
    const swapped = await h.apply([{ op: "install", source: rebuild, allowDowngrade: true }]);
    expect(swapped.revision.extensions[0]!.version).toBe("1.0.1+rebuild");
  });
});

describe("namespaces", () => {
  it("lets a publisher install only inside its namespaces (default <publisher>.*)", async () => {
    const h = await home();
    const taken = await makePackage(
      work,
      versioned("acme.payments", "1.0.0", "evil"),
      evil.privateKey,
    );
    expect(await refusal(h.install(taken))).toBe(
      'namespace_denied: publisher "evil" may install extension ids in evil.*; "acme.payments" is outside them',
    );
    const own = await makePackage(work, versioned("evil.pay", "1.0.0", "evil"), evil.privateKey);
    expect((await h.install(own)).published).toBe(true);
  });

  it("grants more namespaces explicitly, and refuses two owners for one id", () => {
    const cfg = (pubs: object[]) =>
      validateOwnerConfig(ownerConfig({ trustedPublishers: pubs }) as never);
    expect(
      cfg([
        { id: "acme", publicKey: FIXTURE_PUB, namespaces: ["acme.*", "tools"] },
        { id: "evil", publicKey: evil.publicKey },
      ]).ok,
    ).toBe(true);
    const clash = cfg([
      { id: "acme", publicKey: FIXTURE_PUB },
      { id: "evil", publicKey: evil.publicKey, namespaces: ["acme.payments"] },
    ]);
    expect(clash.ok).toBe(false);
    expect(!clash.ok && clash.issues[0]).toMatchObject({
      path: "/trustedPublishers/1/namespaces/0",
      message:
        'namespace acme.payments of publisher "evil" overlaps acme.* of publisher "acme"; an extension id has one owner',
    });
    const bad = cfg([{ id: "acme", publicKey: FIXTURE_PUB, namespaces: ["acme.**"] }]);
    expect(!bad.ok && bad.issues[0]?.path).toBe("/trustedPublishers/0/namespaces/0");
  });
});

describe("CLI groups and reserved paths", () => {
  it("refuses another publisher's commands under a group, and any path at a reserved word", async () => {
    const h = await home();
    await h.install(
      await makePackage(work, {
        ...versioned("acme.tools", "1.0.0", "acme", [{ id: "status", path: ["acme", "status"] }]),
        groups: [{ path: ["acme"], summary: "Acme's tools" }],
      }),
    );
    const intruder = await makePackage(
      work,
      versioned("evil.pay", "1.0.0", "evil", [{ id: "pay", path: ["acme", "pay"] }]),
      evil.privateKey,
    );
    expect(await refusal(h.install(intruder))).toBe(
      'group_conflict: CLI group "acme" belongs to publisher "acme" (acme.tools); evil.pay by "evil" cannot add "acme pay" under it',
    );
    // Whoever came first keeps the group, whichever id sorts first.
    const first = await makePackage(
      work,
      versioned("evil.zed", "1.0.0", "evil", [{ id: "x", path: ["zed", "x"] }]),
      evil.privateKey,
    );
    expect((await h.install(first)).published).toBe(true);
    const later = await makePackage(
      work,
      versioned("acme.zed", "1.0.0", "acme", [{ id: "y", path: ["zed", "y"] }]),
    );
    expect(await refusal(h.install(later))).toBe(
      'group_conflict: CLI group "zed" belongs to publisher "evil" (evil.zed); acme.zed by "acme" cannot add "zed y" under it',
    );
    expect(await refusal(h.remove("evil.zed").then(() => h.install(later)))).toBe("accepted");
    // The same publisher may add to its own group from another extension.
    const sibling = await makePackage(
      work,
      versioned("acme.more", "1.0.0", "acme", [{ id: "pay", path: ["acme", "pay"] }]),
    );
    expect((await h.install(sibling)).published).toBe(true);
    for (const [path, aliases] of [
      [["doctor"], undefined],
      [["trust", "add"], undefined],
      [["ext", "tally"], undefined],
      [["tally"], [["help"]]],
    ] as const) {
      const pkg = await makePackage(
        work,
        versioned("evil.admin", "1.0.0", "evil", [
          { id: "x", path, ...(aliases && { aliases }) } as CommandDef,
        ]),
        evil.privateKey,
      );
      expect(await refusal(h.install(pkg))).toMatch(/^reserved_path: evil\.admin declares "/);
    }
    const group = await makePackage(
      work,
      {
        ...versioned("evil.admin", "1.0.0", "evil", [{ id: "x", path: ["trust", "x"] }]),
        groups: [{ path: ["trust"], summary: "Trust, really" }],
      },
      evil.privateKey,
    );
    expect(await refusal(h.install(group))).toMatch(
      /^reserved_path: evil\.admin declares group "trust"/,
    );
    expect(RESERVED_CLI_WORDS).toContain("runs");
  });
});

describe("trust removal", () => {
  it("keeps a removed publisher's extensions only disabled, and refuses to enable them", async () => {
    const h = await home();
    const p = await h.install(
      await makePackage(work, versioned("evil.pay", "1.0.0", "evil"), evil.privateKey),
    );
    const config = p.revision.config;
    const without = {
      ...config,
      trustedPublishers: config.trustedPublishers.filter((t) => t.id !== "evil"),
    };
    expect(await refusal(h.setConfig(without))).toMatch(/^untrusted_publisher/);
    const removed = await h.apply([
      { op: "setConfig", config: without },
      { op: "disable", id: "evil.pay" },
    ]);
    expect(removed.revision.extensions).toMatchObject([{ id: "evil.pay", enabled: false }]);
    expect((await h.projection()).tools).toEqual([]);
    expect(await refusal(h.enable("evil.pay"))).toMatch(/^untrusted_publisher/);
  });
});

describe("sources", () => {
  it("installs a publisher's packages only from its sources, when it has any", async () => {
    const inside = tempDir("rukh-sources-");
    const h = await home({
      trustedPublishers: [
        { id: "acme", publicKey: FIXTURE_PUB, sources: [inside] },
        { id: "evil", publicKey: evil.publicKey },
      ],
    });
    const outside = await makePackage(work, versioned("acme.tools", "1.0.0"));
    expect(await refusal(h.install(outside))).toMatch(
      /^source_denied: publisher "acme" installs only from .*rukh-sources-\w+; acme\.tools comes from /,
    );
    const ok = await makePackage(inside, versioned("acme.tools", "1.0.0"));
    expect((await h.install(ok)).published).toBe(true);
    // Others are unrestricted.
    const free = await makePackage(
      work,
      versioned("evil.x", "1.0.0", "evil", [{ id: "y" }]),
      evil.privateKey,
    );
    expect((await h.install(free)).published).toBe(true);
    const relative = validateOwnerConfig(
      ownerConfig({
        trustedPublishers: [{ id: "acme", publicKey: FIXTURE_PUB, sources: ["pkgs"] }],
      }) as never,
    );
    expect(!relative.ok && relative.issues[0]?.path).toBe("/trustedPublishers/0/sources/0");
  });
});

describe("garbage collection", () => {
  it("keeps the active revision, the newest of its history and young ones; removes the rest and packages only they used", async () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const h = new StateDirectory(tempDir("rukh-gc-"), { now: () => new Date(clock) });
    await h.setConfig(ownerConfig() as never);
    const digests: string[] = [];
    for (let v = 0; v < 6; v++) {
      clock += 86_400_000;
      const p = await h.install(await makePackage(work, versioned("acme.tools", `1.0.${v}`)));
      digests.push(p.revision.extensions[0]!.digest);
    }
    // Fix the store entries' age: they were not stored a moment ago.
    const { utimesSync } = await import("node:fs");
    const old = new Date("2026-01-01T00:00:00Z");
    for (const d of digests) utimesSync(join(h.root, "store", d), old, old);
    clock = Date.parse("2026-06-01T00:00:00Z");
    const dry = await h.collectGarbage({ keep: 3, maxAgeDays: 30, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, keptRevisions: 3 });
    expect(dry.revisions).toHaveLength(4);
    expect([...dry.packages].sort()).toEqual(digests.slice(0, 3).sort());
    expect((await h.history()).length).toBe(7);
    const done = await h.collectGarbage({ keep: 3, maxAgeDays: 30 });
    expect(done.revisions).toEqual(dry.revisions);
    expect(done.bytes).toBeGreaterThan(0);
    expect((await h.history()).map((e) => e.revision.extensions[0]?.version)).toEqual([
      "1.0.5",
      "1.0.4",
      "1.0.3",
    ]);
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(join(h.root, "store")).sort()).toEqual(digests.slice(3).sort());
    // A removed package's part goes with it; a kept one's stays.
    expect(readdirSync(join(h.root, "revisions", "parts")).sort()).toEqual(
      digests
        .slice(3)
        .map((d) => `${d}.json`)
        .sort(),
    );
    expect(await refusal(h.rollback(dry.revisions[0]!))).toMatch(/^unknown_revision/);
    // Everything left still verifies and serves.
    expect((await h.projection()).routes.commands).toHaveLength(1);
  });
});

describe("packages that cannot run", () => {
  it("refuses to sign a package whose declared program is missing or a directory", async () => {
    const d = {
      ...versioned("acme.tools", "1.0.0"),
    } as unknown as { commands: { execute: { program: string } }[] };
    d.commands[0]!.execute.program = "bin/absent.mjs";
    await expect(makePackage(work, d)).rejects.toMatchObject({
      code: "missing_program",
      message: 'acme.tools/x runs "bin/absent.mjs", which is not a file of the package',
    });
    d.commands[0]!.execute.program = "bin";
    await expect(makePackage(work, d)).rejects.toMatchObject({
      code: "missing_program",
      message: 'acme.tools/x runs "bin", which is not a file of the package (it is a directory)',
    });
  });
});

describe("imports a Node program cannot load", () => {
  const withProgram = async (program: string, extra: Record<string, string> = {}) => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const { mkdtempSync } = await import("node:fs");
    const dir = mkdtempSync(join(work, "imports-"));
    const d = versioned("acme.tools", "1.0.0");
    writeFileSync(join(dir, "rukh-extension.json"), JSON.stringify(d));
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin", "run.mjs"), program);
    for (const [p, t] of Object.entries(extra)) {
      mkdirSync(join(dir, p, ".."), { recursive: true });
      writeFileSync(join(dir, p), t);
    }
    const { signPackage } = await import("../../src/index.js");
    return signPackage(dir, (await import("../_helpers.js")).FIXTURE_KEY, {
      publisher: "acme",
    }).then(
      () => "signed",
      (e: ProfileError) => `${e.code}: ${e.message}`,
    );
  };

  it.each([
    [
      'import { x } from "./lib.mjs";',
      {},
      'unresolved_import: bin/run.mjs imports "./lib.mjs", which is not a file of the package',
    ],
    [
      'import "../../outside.mjs";',
      {},
      'unresolved_import: bin/run.mjs imports "../../outside.mjs", which is not a file of the package',
    ],
    [
      'import { runCommandProcess } from "@rukh/ipc";',
      {},
      'unresolved_import: bin/run.mjs imports "@rukh/ipc", which the package does not contain (vendor it under node_modules/@rukh/ipc)',
    ],
    [
      'const m = await import("left-pad");',
      {},
      'unresolved_import: bin/run.mjs imports "left-pad", which the package does not contain (vendor it under node_modules/left-pad)',
    ],
    [
      'import "/etc/passwd";',
      {},
      'unresolved_import: bin/run.mjs imports "/etc/passwd", an absolute path outside the package',
    ],
    [
      'import "./lib.mjs";',
      { "bin/lib.mjs": 'import "./gone.mjs";' },
      'unresolved_import: bin/lib.mjs imports "./gone.mjs", which is not a file of the package',
    ],
  ])("refuses %s", async (program, extra, message) => {
    expect(await withProgram(program, extra)).toBe(message);
  });

  it.each([
    ['import { readFileSync } from "node:fs"; import path from "path";', {}],
    [
      'import { runCommandProcess } from "@rukh/ipc/runtime";',
      { "node_modules/@rukh/ipc/package.json": "{}" },
    ],
    ['import "./lib.mjs";', { "bin/lib.mjs": 'export const x = 1; import("./" + name);' }],
    ['import { x } from "file:///opt/runtime/index.js";', {}],
  ])("accepts %s", async (program, extra) => {
    expect(await withProgram(program, extra)).toBe("signed");
  });
});
