// Under client-fit names a publication checks its tools' names from the
// slugs its base's catalog holds and what it changes: it reads no kept
// extension's tools, and the catalog it writes is, byte for byte, the one a
// derivation from the verified store writes (the shared slugs included).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { StateDirectory } from "../../src/index.js";
import { descriptor, makePackage, ownerConfig, tempDir } from "../_helpers.js";

/** The package digests whose tools a catalog read was asked for, since the last clear. */
const toolsAsked: string[] = [];
vi.mock("../../src/publication/_catalog.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/publication/_catalog.js")>();
  return {
    ...real,
    readCatalog: async (...args: Parameters<typeof real.readCatalog>) => {
      const catalog = await real.readCatalog(...args);
      if (catalog === undefined) return undefined;
      return new Proxy(catalog, {
        get(target, key, receiver) {
          if (key === "toolsOf")
            return (digest: string) => {
              toolsAsked.push(digest);
              return target.toolsOf(digest);
            };
          if (key === "tools") toolsAsked.push("*");
          return Reflect.get(target, key, receiver);
        },
      });
    },
  };
});

const work = tempDir();
const IDS = ["acme.files", "acme.team.files", "acme.docs", "acme.e3", "acme.e4"];

/** A state directory naming tools client-fit, with every id of IDS exposed. */
async function compactState(): Promise<StateDirectory> {
  const h = new StateDirectory(tempDir("rukh-slug-carry-"));
  await h.setConfig(
    ownerConfig({ mcp: { toolNames: "compact" }, exposure: { extensions: IDS } }) as never,
  );
  return h;
}

const pkg = (id: string, version = "1.0.0") =>
  makePackage(work, {
    ...descriptor(id, "acme", [
      { id: "go", path: [id.replaceAll(".", "-"), "go"] },
      { id: "run", path: [id.replaceAll(".", "-"), "run"] },
    ]),
    version,
  });

/** The active catalog's header. */
async function header(h: StateDirectory): Promise<{ slugs: string; shared: object }> {
  const id = await h.activeRevisionId();
  const text = readFileSync(join(h.root, "revisions", `${id}.catalog.json`), "utf8");
  return JSON.parse(text.slice(0, text.indexOf("\n")));
}

describe("client-fit names at publication", () => {
  it("are checked without reading a kept extension's tools", async () => {
    const h = await compactState();
    for (const id of ["acme.docs", "acme.e3", "acme.e4"]) await h.install(await pkg(id));
    const base = await h.readRevision((await h.activeRevisionId())!);
    const kept = base.extensions.map((e) => e.digest);
    toolsAsked.length = 0;
    await h.install(await pkg("acme.e3", "1.0.1"));
    expect(toolsAsked.filter((d) => d !== kept[1])).toEqual([]);
    expect(await new StateDirectory(h.root).checkRouteCache()).toBe("matches");
  });

  it("carry the slugs two extensions share through installs, upgrades and removals, as the store derives them", async () => {
    const h = await compactState();
    await h.install(await pkg("acme.files"));
    expect((await header(h)).shared).toEqual({});
    // Its slugs meet ones a single tool held: the index is made from every tool.
    await h.install(await pkg("acme.team.files"));
    expect((await header(h)).shared).toEqual({
      files_go: ["acme.files/go", "acme.team.files/go"],
      files_run: ["acme.files/run", "acme.team.files/run"],
    });
    expect((await header(h)).slugs).toBe("files_go\nfiles_run");
    await h.install(await pkg("acme.docs"));
    await h.install(await pkg("acme.team.files", "1.0.1"));
    expect(await new StateDirectory(h.root).checkRouteCache()).toBe("matches");
    await h.remove("acme.files");
    expect((await header(h)).shared).toEqual({});
    expect((await header(h)).slugs).toBe("docs_go\ndocs_run\nfiles_go\nfiles_run");
    expect(await new StateDirectory(h.root).checkRouteCache()).toBe("matches");
    await h.disable("acme.docs");
    await h.enable("acme.docs");
    expect(await new StateDirectory(h.root).checkRouteCache()).toBe("matches");
  });
});
