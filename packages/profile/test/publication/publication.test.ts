import { readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fingerprint } from "@rukh/json";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkStoredPackage,
  cliRoutes,
  listTools,
  ProfileError,
  resolveTool,
  StateDirectory,
} from "../../src/index.js";
import { PAGE_MAX_TOOLS } from "../../src/model/_limits.js";
import { clientFitName, toolName } from "../../src/projection.js";
import { descriptor, listing, makePackage, ownerConfig, tempDir } from "../_helpers.js";

const work = tempDir();
const many = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}` }));

async function home(config: Record<string, unknown> = ownerConfig()): Promise<StateDirectory> {
  const h = new StateDirectory(tempDir("rukh-pub-"));
  await h.setConfig(config as never);
  return h;
}

async function code(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => (e instanceof ProfileError ? e.code : String(e)),
  );
}

describe("publication", () => {
  it("lists as a tool only an eligible command that requires rukh.command-result/1; the other still routes on the CLI", async () => {
    const h = await home();
    const d = descriptor("acme.files", "acme", [{ id: "with" }, { id: "without" }]) as {
      commands: { machine: { requiredFeatures: string[] } }[];
    };
    d.commands[1]!.machine.requiredFeatures = [];
    const r = await h.install(await makePackage(work, d));
    expect(r.projection.tools.map((t) => t.identity)).toEqual(["acme.files/with"]);
    expect(r.projection.routes.commands.map((c) => c.identity).sort()).toEqual([
      "acme.files/with",
      "acme.files/without",
    ]);
  });

  it("never lists a command without a machine block: it routes on the CLI only, exposed or not", async () => {
    const h = await home();
    const d = descriptor("acme.files", "acme", [
      { id: "tool" },
      { id: "cli_only", path: ["cli-only"] },
    ]) as {
      commands: { machine?: object }[];
    };
    delete d.commands[1]!.machine;
    const r = await h.install(await makePackage(work, d));
    expect(r.projection.tools.map((t) => t.identity)).toEqual(["acme.files/tool"]);
    expect(r.projection.routes.commands.map((c) => c.identity).sort()).toEqual([
      "acme.files/cli_only",
      "acme.files/tool",
    ]);
    // Its would-be name resolves to nothing: an MCP call of it finds no tool.
    const name = toolName("acme-test", r.revisionId, "acme.files/cli_only");
    expect(resolveTool(r.projection, name)).toBeUndefined();
    expect(resolveTool(r.projection, r.projection.tools[0]!.name)?.identity).toBe(
      "acme.files/tool",
    );
  });

  it("publishes nothing for a change that changes nothing; a rollback always publishes", async () => {
    const h = await home();
    const pkg = await makePackage(work, descriptor("acme.files", "acme", [{ id: "x" }]));
    const first = await h.install(pkg);
    expect(first.published).toBe(true);
    const before = listing(h.root);
    const again = await h.install(pkg);
    expect(again).toMatchObject({ published: false, revisionId: first.revisionId });
    const same = await h.setConfig(first.revision.config);
    expect(same).toMatchObject({ published: false, revisionId: first.revisionId });
    expect(listing(h.root)).toEqual(before);
    const back = await h.rollback(first.revisionId);
    expect(back.published).toBe(true);
    expect(back.revisionId).not.toBe(first.revisionId);
  });

  it("tells onPublished each revision it publishes, and nothing for a change that changed nothing or failed", async () => {
    const seen: string[] = [];
    const h = new StateDirectory(tempDir("rukh-pub-seen-"), { onPublished: (id) => seen.push(id) });
    const config = await h.setConfig(ownerConfig() as never);
    const pkg = await makePackage(work, descriptor("acme.files", "acme", [{ id: "x" }]));
    const first = await h.install(pkg);
    await h.install(pkg);
    const clash = descriptor("acme.more", "acme", [{ id: "y", path: ["x"] }]);
    expect(await code(h.install(await makePackage(work, clash)))).toBe("route_conflict");
    expect(seen).toEqual([config.revisionId, first.revisionId]);
  });

  it.each([
    ["same path", [{ id: "x", path: ["files", "x"] }], [{ id: "y", path: ["files", "x"] }]],
    ["alias onto a path", [{ id: "x" }], [{ id: "y", aliases: [["x"]] }]],
    ["alias onto an alias", [{ id: "x", aliases: [["go"]] }], [{ id: "y", aliases: [["go"]] }]],
    [
      "a command on another's group",
      [{ id: "x", path: ["files"] }],
      [{ id: "y", path: ["files", "y"] }],
    ],
    [
      "a group over another's command",
      [{ id: "x", path: ["files", "x"] }],
      [{ id: "y", path: ["files"] }],
    ],
  ])(
    "rejects a route conflict across extensions (%s) and leaves active untouched",
    async (_n, a, b) => {
      const h = await home();
      await h.install(await makePackage(work, descriptor("acme.files", "acme", a)));
      const active = await h.activeRevisionId();
      const before = listing(h.root);
      const second = await makePackage(work, descriptor("acme.more", "acme", b));
      expect(await code(h.install(second))).toBe("route_conflict");
      expect(await h.activeRevisionId()).toBe(active);
      expect(listing(h.root)).toEqual(before);
    },
  );

  it("changes every name on every revision, policy-only included; recomputation is identical", async () => {
    const h = await home();
    const r1 = await h.install(
      await makePackage(work, descriptor("acme.files", "acme", [{ id: "a" }])),
    );
    const r2 = await h.setConfig(ownerConfig({ brand: "acme2" }) as never);
    const n1 = r1.projection.tools[0]!.name;
    const n2 = r2.projection.tools[0]!.name;
    expect(n1).not.toBe(n2);
    expect(n1).toMatch(/^acme_files_a__[0-9a-f]{64}$/);
    expect(n2).toBe(toolName("acme-test", r2.revisionId, "acme.files/a"));
    const again = await new StateDirectory(h.root).projection();
    expect(again.tools.map((t) => t.name)).toEqual(r2.projection.tools.map((t) => t.name));
    expect(resolveTool(again, n1)).toBeUndefined();
    expect(resolveTool(again, n2)?.identity).toBe("acme.files/a");
    // A policy-only change keeps the route table and its generation.
    expect(r2.revision.commandGeneration).toBe(r1.revision.commandGeneration);
    const r3 = await h.disable("acme.files");
    expect(r3.revision.commandGeneration).toBe(r2.revision.commandGeneration + 1);
    expect(r3.projection.tools).toEqual([]);
    expect(cliRoutes(r3.projection).commands).toEqual([]);
  });

  it("compact names are short and resolve exactly", async () => {
    const h = await home(ownerConfig({ mcp: { toolNames: "compact" } }));
    const long = "a-really-long-command-identifier-that-goes-on";
    const r = await h.install(
      await makePackage(work, descriptor("acme.files", "acme", [{ id: long }, { id: "b" }])),
    );
    for (const t of r.projection.tools) {
      expect(t.name.length).toBeLessThanOrEqual(42);
      expect(t.name).toMatch(/^[a-z0-9_-]{1,24}__[g-z]{1,4}[0-9a-f]{4,12}$/);
      expect(resolveTool(r.projection, t.name)).toBe(t);
      expect(resolveTool(r.projection, t.name.toUpperCase())).toBeUndefined();
      expect(resolveTool(r.projection, `${t.name}0`)).toBeUndefined();
      expect(resolveTool(r.projection, t.name.slice(0, -1))).toBeUndefined();
      expect(
        resolveTool(r.projection, toolName("acme-test", r.revisionId, t.identity)),
      ).toBeUndefined();
    }
  });

  it("projects only eligible, exposed commands, a text result's without an output schema", async () => {
    const h = await home(
      ownerConfig({ exposure: { commands: ["acme.files/a", "acme.files/hidden"] } }),
    );
    const r = await h.install(
      await makePackage(
        work,
        descriptor("acme.files", "acme", [
          { id: "a" },
          { id: "b" },
          { id: "hidden", eligible: false },
        ]),
      ),
    );
    expect(r.projection.tools.map((t) => t.identity)).toEqual(["acme.files/a"]);
    const t = r.projection.tools[0]!;
    expect(t.title).toBe("Run a");
    expect(t.inputSchema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["name"],
    });
    expect(t.outputSchema).toMatchObject({
      additionalProperties: false,
      required: ["invocationId", "outcome"],
    });
    expect(cliRoutes(r.projection).commands.map((c) => c.identity)).toEqual([
      "acme.files/a",
      "acme.files/b",
      "acme.files/hidden",
    ]);
  });

  it("pages at most 32 tools with cursors bound to revision and visibility", async () => {
    const h = await home();
    const r = await h.install(await makePackage(work, descriptor("acme.files", "acme", many(70))));
    const cursorKey = await h.cursorKey();
    const names: string[] = [];
    let page = listTools(r.projection, { preset: "default", cursorKey });
    const first = page;
    for (;;) {
      expect(page.tools.length).toBeLessThanOrEqual(PAGE_MAX_TOOLS);
      names.push(...page.tools.map((t) => t.name));
      if (page.nextCursor === undefined) break;
      page = listTools(r.projection, { preset: "default", cursorKey, cursor: page.nextCursor });
    }
    expect(names).toEqual(r.projection.tools.map((t) => t.name));
    expect(names).toEqual([...names].sort());
    const cursor = first.nextCursor!;
    const r2 = await h.setConfig(ownerConfig({ endpointNamespace: "other" }) as never);
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === "A" ? "B" : "A"}${cursor.slice(6)}`;
    const cases: [string, () => unknown, string][] = [
      [
        "another revision",
        () => listTools(r2.projection, { preset: "default", cursorKey, cursor }),
        "stale_cursor",
      ],
      [
        "another binding",
        () => listTools(r.projection, { preset: "narrow", cursorKey, cursor }),
        "stale_cursor",
      ],
      [
        "tampered",
        () => listTools(r.projection, { preset: "default", cursorKey, cursor: tampered }),
        "invalid_cursor",
      ],
      [
        "another key",
        () =>
          listTools(r.projection, { preset: "default", cursorKey: Buffer.alloc(32, 7), cursor }),
        "invalid_cursor",
      ],
      [
        "garbage",
        () => listTools(r.projection, { preset: "default", cursorKey, cursor: "x" }),
        "invalid_cursor",
      ],
      [
        "too long",
        () => listTools(r.projection, { preset: "default", cursorKey, cursor: "a".repeat(600) }),
        "invalid_cursor",
      ],
      [
        "unknown preset",
        () => listTools(r.projection, { preset: "nope", cursorKey }),
        "unknown_preset",
      ],
    ];
    for (const [name, call, expected] of cases) {
      let got: unknown;
      try {
        call();
      } catch (e) {
        got = e;
      }
      expect([name, (got as ProfileError | undefined)?.code]).toEqual([name, expected]);
    }
    const narrow = listTools(r.projection, { preset: "narrow", cursorKey });
    expect(narrow.tools).toEqual([]);
    expect(await h.cursorKey()).toEqual(cursorKey);
  });

  it("lists from the revision's catalog, and its package check still catches a tampered byte", async () => {
    const h = await home();
    const r = await h.install(
      await makePackage(work, descriptor("acme.files", "acme", [{ id: "a" }])),
    );
    const digest = r.revision.extensions[0]!.digest;
    writeFileSync(join(h.root, "store", digest, "bin", "run.mjs"), "process.exit(2);\n");
    // Listing is what was published; what runs is checked where it runs.
    const fresh = new StateDirectory(h.root);
    expect((await fresh.projection()).tools.map((t) => t.identity)).toEqual(["acme.files/a"]);
    expect(await code(checkStoredPackage(h.root, digest))).toBe("store_corrupt");
  });

  it("lists from the catalog exactly what it lists from the verified store: names, schemas, pages, routes", async () => {
    const h = await home();
    const r = await h.install(
      await makePackage(
        work,
        descriptor("acme.files", "acme", [{ id: "a" }, { id: "b" }, { id: "c" }]),
      ),
    );
    const key = new Uint8Array(32).fill(7);
    const pages = (p: Awaited<ReturnType<StateDirectory["projection"]>>) =>
      JSON.stringify([p.tools, listTools(p, { preset: "default", cursorKey: key }), p.routes]);
    const fromCatalog = await new StateDirectory(h.root).projection();
    rmSync(join(h.root, "revisions", `${r.revisionId}.catalog.json`));
    const fromStore = await new StateDirectory(h.root).projection();
    expect(pages(fromCatalog)).toBe(pages(fromStore));
    expect(fromCatalog.tools.map((t) => t.identity)).toEqual([
      "acme.files/a",
      "acme.files/b",
      "acme.files/c",
    ]);
  });

  it("never trusts a catalog that does not hash to its revision's digest: it reads the store, which verifies", async () => {
    const h = await home();
    const r = await h.install(
      await makePackage(work, descriptor("acme.files", "acme", [{ id: "a" }, { id: "b" }])),
    );
    const catalog = join(h.root, "revisions", `${r.revisionId}.catalog.json`);
    const text = readFileSync(catalog, "utf8");
    expect(JSON.parse(text.slice(0, text.indexOf("\n"))).format).toBe("rukh.revision-catalog/9");
    // An edited catalog would rename a command: it is ignored.
    writeFileSync(catalog, text.replaceAll("Run b", "Run z"));
    const fresh = new StateDirectory(h.root);
    expect((await fresh.projection()).tools.map((t) => t.identity)).toEqual([
      "acme.files/a",
      "acme.files/b",
    ]);
    expect(await h.checkRouteCache()).toBe("differs");
    expect(await h.checkRouteCache({ repair: true })).toBe("rewritten");
    expect(readFileSync(catalog, "utf8")).toBe(text);
    // One past the bound (a sparse file) is never read: the store is, verified.
    truncateSync(catalog, 67_108_865);
    expect((await new StateDirectory(h.root).projection()).tools).toHaveLength(2);
    // A package's part (its descriptor, written once) edited: the catalog's
    // digest of it no longer matches, so it is never parsed.
    writeFileSync(catalog, text);
    const part = join(h.root, "revisions", "parts", `${r.revision.extensions[0]!.digest}.json`);
    const partText = readFileSync(part, "utf8");
    writeFileSync(part, partText.replace('"Run b"', '"Run z"'));
    const edited = await new StateDirectory(h.root).projection();
    expect(() => JSON.stringify(edited.tools)).toThrow(
      /does not match the digest .* doctor --repair/,
    );
    expect(await h.checkRouteCache()).toBe("differs");
    expect(await h.checkRouteCache({ repair: true })).toBe("rewritten");
    expect(readFileSync(part, "utf8")).toBe(partText);
    // Without its catalog, a store that was modified fails as before.
    rmSync(catalog);
    expect(await h.checkRouteCache()).toBe("missing");
    const digest = r.revision.extensions[0]!.digest;
    writeFileSync(join(h.root, "store", digest, "bin", "run.mjs"), "process.exit(2);\n");
    expect(await code(new StateDirectory(h.root).projection())).toBe("store_corrupt");
  });

  it("rolls back to an earlier state as a new revision and lists history", async () => {
    const h = await home();
    const r1 = await h.install(
      await makePackage(work, descriptor("acme.files", "acme", [{ id: "a" }])),
    );
    await h.remove("acme.files");
    const r3 = await h.rollback(r1.revisionId);
    expect(r3.revisionId).not.toBe(r1.revisionId);
    expect(r3.revision.extensions).toEqual(r1.revision.extensions);
    expect(r3.revision.sequence).toBe(4);
    expect((await h.history()).map((e) => e.revision.sequence)).toEqual([4, 3, 2, 1]);
  });

  it("rejects a policy edit that drops trust in an installed publisher", async () => {
    const h = await home();
    await h.install(await makePackage(work, descriptor("acme.files", "acme", [{ id: "a" }])));
    expect(await code(h.setConfig(ownerConfig({ trustedPublishers: [] }) as never))).toBe(
      "untrusted_publisher",
    );
    expect(await code(h.setConfig(ownerConfig({ brand: "BAD" }) as never))).toBe("invalid_config");
    expect(await code(h.remove("nope"))).toBe("unknown_extension");
    expect(await code(h.install("/nonexistent/pkg"))).toBe("io_error");
  });
});

describe("the publication lock", () => {
  it("is held by the kernel: a lock file naming a live, unrelated pid blocks nothing", async () => {
    const h = new StateDirectory(join(work, "lock-held-by-a-stranger"), { lockTimeoutMs: 500 });
    await h.setConfig(ownerConfig() as never);
    // What the file-based lock of earlier versions looked like, naming this very (live) process.
    writeFileSync(join(h.root, "lock"), `${process.pid} 0123456789abcdef\n`);
    const r = await h.setConfig(ownerConfig({ brand: "acme2" }) as never);
    expect(r.published).toBe(true);
  });

  it.each(["abstract-socket", "socket-file"] as const)(
    "serializes publishers of one process, and times out while it is held (%s locks)",
    async (locks) => {
      const root = join(work, `lock-timeout-${locks}`);
      const a = new StateDirectory(root, { locks });
      await a.setConfig(ownerConfig() as never);
      const { stateLocks } = await import("../../src/index.js");
      const { realpathSync } = await import("node:fs");
      const held = await stateLocks(realpathSync(root), locks).hold("publication");
      expect(held).not.toBeNull();
      const b = new StateDirectory(root, { lockTimeoutMs: 200, locks });
      await expect(b.setConfig(ownerConfig({ brand: "acme3" }) as never)).rejects.toMatchObject({
        code: "lock_timeout",
      });
      held!.release();
      expect((await b.setConfig(ownerConfig({ brand: "acme3" }) as never)).published).toBe(true);
    },
  );
});

describe("tool names", () => {
  it("match vectors computed without Rukh's code", () => {
    // Each fingerprint is coreutils' `sha256sum` of the RFC 8785 text of
    // ["rukh.mcp-tool/1", namespace, revision id, identity], typed out by hand:
    //   printf '%s' '["rukh.mcp-tool/1","acme-local","aaaa…aaaa","acme.tools/greet"]' | sha256sum
    const rid = "a".repeat(64);
    expect(toolName("acme-local", rid, "acme.tools/greet")).toBe(
      "acme_tools_greet__9614b321681b876a789f660e64e1aa88a53e23cbc0ca94851fef96134e09c5e3",
    );
    expect(
      clientFitName({
        namespace: "acme-local",
        revisionId: rid,
        sequence: 1,
        identity: "acme.tools/greet",
        digits: 4,
      }),
    ).toBe("tools_greet__h9614");
    // The slug keeps [a-z0-9_-], lowercases, maps the rest to "_" and stops at 48 characters.
    expect(
      toolName(
        "acme-local",
        rid,
        "Acme.Tools-x/Very.Long_command-name.with.many.parts.beyond.forty.eight",
      ),
    ).toBe(
      "acme_tools-x_very_long_command-name_with_many_pa__c291e3f4c616a56c2da78d4ae4e87de9562195da38d46b3b5cd88f9cac672efb",
    );
  });

  it("are the fingerprint of the four strings, for any ids a revision can hold", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
        fc.stringMatching(/^[0-9a-f]{64}$/),
        fc.stringMatching(/^[a-z][a-z0-9._-]{0,30}\/[a-z][a-z0-9_-]{0,30}$/),
        (ns, rid, identity) => {
          const fp = fingerprint(["rukh.mcp-tool/1", ns, rid, identity]);
          expect(toolName(ns, rid, identity).endsWith(`__${fp}`)).toBe(true);
        },
      ),
    );
  });
});
