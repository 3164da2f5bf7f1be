import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateOwnerConfig } from "../../src/config.js";
import { listTools, type ProfileError, StateDirectory, visibleTools } from "../../src/index.js";
import { validateRevision } from "../../src/publication/_revision-check.js";
import { descriptor, janeRevision, makePackage, ownerConfig, tempDir } from "../_helpers.js";

// Development links in the profile: an unsigned directory stored and run
// like a package, trusted by no one, hidden from MCP unless named, linked
// again when it changes.
const work = tempDir();

/** An unsigned package directory of `id` from publisher `jane`, whom nobody trusts. */
function unsigned(id: string, summary = "Run hello"): string {
  const dir = mkdtempSync(join(work, "dev-"));
  const group = id.slice(id.lastIndexOf(".") + 1);
  const d = descriptor(id, "jane", [{ id: "hello", path: [group, "hello"] }]) as {
    commands: { summary: string }[];
  };
  d.commands[0]!.summary = summary;
  writeFileSync(join(dir, "rukh-extension.json"), JSON.stringify(d));
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "run.mjs"), "process.exit(0);\n");
  return dir;
}

async function state(): Promise<StateDirectory> {
  const home = new StateDirectory(mkdtempSync(join(work, "home-")));
  const config = ownerConfig({ exposure: { extensions: ["acme.files", "jane.hello"] } });
  const presets = config.presets as Record<string, { commands: string[] }>;
  presets.default!.commands.push("jane.hello/*");
  await home.setConfig(JSON.stringify(config));
  return home;
}

describe("development links", () => {
  it("link an unsigned package of an untrusted publisher, marked dev in the revision", async () => {
    const home = await state();
    const dir = unsigned("jane.hello");
    const p = await home.link(dir);
    expect(p.published).toBe(true);
    const e = p.revision.extensions.find((x) => x.id === "jane.hello")!;
    expect(e.dev).toBe(dir);
    expect(p.projection.devExtensions).toEqual(["jane.hello"]);
    // Linking what is linked publishes nothing.
    expect((await home.link(dir)).published).toBe(false);
    // The CLI runs it.
    expect(p.projection.routes.commands.map((c) => c.identity)).toContain("jane.hello/hello");
  });

  it("hide its tools from every list and call unless they are allowed by name", async () => {
    const home = await state();
    await home.install(await makePackage(work, descriptor("acme.files", "acme", [{ id: "ls" }])));
    const p = await home.link(unsigned("jane.hello"));
    const projection = await home.projection(p.revisionId);
    const ids = (tools: readonly { identity: string }[]) => tools.map((t) => t.identity);
    expect(ids(visibleTools(projection, "default"))).toEqual(["acme.files/ls"]);
    expect(ids(visibleTools(projection, "default", ["jane.hello"])).sort()).toEqual([
      "acme.files/ls",
      "jane.hello/hello",
    ]);
    const cursorKey = await home.cursorKey();
    expect(ids(listTools(projection, { preset: "default", cursorKey }).tools)).toEqual([
      "acme.files/ls",
    ]);
    expect(
      ids(
        listTools(projection, { preset: "default", cursorKey, devAllowed: ["jane.hello"] }).tools,
      ),
    ).toHaveLength(2);
  });

  it("link again what changed, keep what cannot be read, in one publication", async () => {
    const home = await state();
    const dir = unsigned("jane.hello");
    const first = await home.link(dir);
    expect(await home.refreshLinks()).toMatchObject({ refreshed: [], problems: [] });
    const file = join(dir, "rukh-extension.json");
    writeFileSync(file, readFileSync(file, "utf8").replace("Run hello", "Say hello"));
    const r = await home.refreshLinks();
    expect(r).toMatchObject({ refreshed: ["jane.hello"], problems: [] });
    const now = await home.projection();
    expect(now.revisionId).not.toBe(first.revisionId);
    expect(now.routes.commands.find((c) => c.identity === "jane.hello/hello")?.cli.summary).toBe(
      "Say hello",
    );
    writeFileSync(file, "{");
    const broken = await home.refreshLinks();
    expect(broken.refreshed).toEqual([]);
    expect(broken.problems).toEqual([expect.objectContaining({ id: "jane.hello", source: dir })]);
    expect((await home.projection()).revisionId).toBe(now.revisionId);
  });

  it("never take an installed id, and an install never takes a linked one", async () => {
    const home = await state();
    await home.install(await makePackage(work, descriptor("acme.files", "acme", [{ id: "ls" }])));
    const clash = unsigned("acme.files");
    await expect(home.link(clash)).rejects.toMatchObject({
      code: "extension_conflict",
    } satisfies Partial<ProfileError>);
    await home.link(unsigned("jane.hello"));
    const signed = await makePackage(work, descriptor("jane.hello", "acme", [{ id: "x" }]));
    await expect(home.install(signed)).rejects.toMatchObject({ code: "extension_conflict" });
    await expect(home.link(join(work, "missing"))).rejects.toMatchObject({ code: "io_error" });
    await expect(home.link(join(signed, "rukh-extension.json"))).rejects.toMatchObject({
      code: "invalid_link",
    });
  });

  it("own only what they bring to the CLI: no command under a trusted publisher's group", async () => {
    const home = await state();
    await home.install(
      await makePackage(
        work,
        descriptor("acme.files", "acme", [{ id: "ls", path: ["files", "ls"] }]),
      ),
    );
    // An unsigned directory that says it is acme's, adding a command to acme's group.
    const dir = unsigned("acme.more");
    const file = join(dir, "rukh-extension.json");
    const d = JSON.parse(readFileSync(file, "utf8"));
    d.publisher = "acme";
    d.commands[0].path = ["files", "evil"];
    writeFileSync(file, JSON.stringify(d));
    await expect(home.link(dir)).rejects.toMatchObject({ code: "group_conflict" });
  });

  it("link again one by one when one of them cannot be, and never under another id", async () => {
    const home = await state();
    const good = unsigned("jane.hello");
    const other = unsigned("jane.other");
    await home.apply([
      { op: "link", source: good },
      { op: "link", source: other },
    ]);
    const edit = (dir: string, from: string, to: string) => {
      const f = join(dir, "rukh-extension.json");
      writeFileSync(f, readFileSync(f, "utf8").replace(from, to));
    };
    edit(good, "Run hello", "Say hello");
    // The other one now claims the first one's path: it cannot be linked again.
    edit(
      other,
      '"path":["other","hello"]',
      '"path":["other","hello"],"aliases":[["hello","hello"]]',
    );
    const r = await home.refreshLinks();
    expect(r.refreshed).toEqual(["jane.hello"]);
    expect(r.problems.map((p) => p.id)).toEqual(["jane.other"]);
    expect(r.problems[0]?.message).toContain('cannot add "hello hello" under it');
    expect(r.revisionId).toBe(await home.activeRevisionId());
    // A directory that now declares another id is never linked under it.
    edit(other, '"id":"jane.other"', '"id":"jane.renamed"');
    await expect(
      home.apply([{ op: "link", source: other, expectId: "jane.other" }]),
    ).rejects.toMatchObject({ code: "invalid_link" });
    expect((await home.refreshLinks()).problems[0]?.message).toContain(
      'now declares "jane.renamed"',
    );
  });

  it("are checked where the owner names them and where a revision records them", () => {
    const bad = validateOwnerConfig(
      ownerConfig({
        mcp: { endpoints: { dev: { preset: "default", devExtensions: ["Not An Id", 3] } } },
      }) as never,
    );
    expect(bad.ok ? [] : bad.issues.map((i) => [i.path, i.code])).toEqual([
      ["/mcp/endpoints/dev/devExtensions/0", "invalid_identity"],
      ["/mcp/endpoints/dev/devExtensions/1", "expected_string"],
    ]);
    const revision = (dev: unknown) => janeRevision("1.0.0", { dev });
    expect(validateRevision(revision("/src/hello") as never).ok).toBe(true);
    for (const dev of ["relative/dir", 7, `/${"x".repeat(5000)}`, "/src/\u001b[2Jx"])
      expect(validateRevision(revision(dev) as never).ok, String(dev)).toBe(false);
  });
});
