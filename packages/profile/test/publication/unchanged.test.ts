// A publication that changes nothing (installing what is installed) builds
// no projection unless its caller reads one: at 1,000 extensions building it
// was a third of a CLI install's time, and the CLI never reads it. Read, it
// is the active revision's projection, built once.
import { describe, expect, it, vi } from "vitest";
import { StateDirectory } from "../../src/index.js";
import { descriptor, makePackage, ownerConfig, tempDir } from "../_helpers.js";

/** How many projections were built from a catalog, since the last clear. */
let built = 0;
vi.mock("../../src/publication/_catalog.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/publication/_catalog.js")>();
  return {
    ...real,
    catalogProjection: (...args: Parameters<typeof real.catalogProjection>) => {
      built++;
      return real.catalogProjection(...args);
    },
  };
});

const work = tempDir();
const pkg = (id: string) =>
  makePackage(work, descriptor(id, "acme", [{ id: "go", path: [id.replaceAll(".", "-"), "go"] }]));

async function installed(): Promise<{ h: StateDirectory; again: string }> {
  const h = new StateDirectory(tempDir("rukh-unchanged-"));
  await h.setConfig(
    ownerConfig({ exposure: { extensions: ["acme.files", "acme.docs"] } }) as never,
  );
  await h.install(await pkg("acme.docs"));
  const again = await pkg("acme.files");
  await h.install(again);
  return { h, again };
}

describe("a publication that changes nothing", () => {
  it("builds no projection until it is read, then the active one, once", async () => {
    const { h, again } = await installed();
    // A state directory of its own: nothing cached from the installs above.
    const fresh = new StateDirectory(h.root);
    built = 0;
    const p = await fresh.install(again);
    expect(p.published).toBe(false);
    expect(built).toBe(0);
    const names = p.projection.tools.map((t) => t.identity).sort();
    expect(names).toEqual(["acme.docs/go", "acme.files/go"]);
    expect(p.projection).toBe(p.projection);
    expect(await fresh.projection()).toBe(p.projection);
    expect(built).toBe(1);
  });

  it("returns the projection this process already built without building another", async () => {
    const { h, again } = await installed();
    const fresh = new StateDirectory(h.root);
    const active = await fresh.projection();
    built = 0;
    const p = await fresh.install(again);
    expect(p.projection).toBe(active);
    expect(built).toBe(0);
  });
});
