// The catalog's index of client-fit slugs: what the next publication
// carries over (the base's less what is gone, plus what is new) is the index
// made from scratch, in the same header text; and a header that is not one
// gives none.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  carriedSlugIndex,
  sharedIdentities,
  slugIndexFromJson,
  slugIndexJson,
  slugIndexOf,
} from "../../src/projection/_client-fit-slugs.js";
import { clientFitSlug } from "../../src/projection/_tool-names.js";

// Few words, so that slugs are often shared ("acme.files/go" and "team.files/go").
const identity = fc
  .tuple(
    fc.constantFrom("acme", "team", "acme.team"),
    fc.constantFrom("files", "docs", "Files"),
    fc.constantFrom("go", "run", "g.o", "list"),
  )
  .map(([p, w, c]) => `${p}.${w}/${c}`);
const tools = fc.uniqueArray(identity, { maxLength: 30 });

describe("the client-fit slug index", () => {
  it("carried over a change is the index of the changed tools, written the same, or gives way to one made from scratch", () => {
    fc.assert(
      fc.property(tools, fc.array(fc.boolean()), tools, (base, drop, add) => {
        const dropped = base.filter((_, i) => drop[i] === true);
        const kept = base.filter((_, i) => drop[i] !== true);
        const added = add.filter((a) => !kept.includes(a));
        const carried = carriedSlugIndex(slugIndexOf(base), dropped, added);
        const scratch = slugIndexOf([...kept, ...added]);
        if (carried !== undefined) {
          expect(slugIndexJson(carried)).toEqual(slugIndexJson(scratch));
          return;
        }
        // Only a new tool meeting a slug one tool held (whose identity the index does not keep) gives way.
        const held = new Map<string, number>();
        for (const k of kept) held.set(clientFitSlug(k), (held.get(clientFitSlug(k)) ?? 0) + 1);
        const met = added.some((a, i) => {
          const s = clientFitSlug(a);
          const before =
            (held.get(s) ?? 0) + added.slice(0, i).filter((x) => clientFitSlug(x) === s).length;
          return before === 1;
        });
        expect(met).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("names every identity whose slug another shares, and no other", () => {
    const index = slugIndexOf(["acme.files/go", "team.files/go", "acme.docs/go", "acme.files/run"]);
    expect(sharedIdentities(index).sort()).toEqual(["acme.files/go", "team.files/go"]);
    expect(slugIndexJson(index)).toEqual({
      slugs: "docs_go\nfiles_go\nfiles_run",
      shared: { files_go: ["acme.files/go", "team.files/go"] },
    });
  });

  it("writes a slug that is a name of Object's prototype as any other", () => {
    const index = slugIndexOf(["a./_proto__", "b./_proto__"]);
    const json = JSON.parse(JSON.stringify(slugIndexJson(index)));
    expect(Object.keys(json.shared)).toEqual(["__proto__"]);
    expect(sharedIdentities(slugIndexFromJson(json)!)).toEqual(["a./_proto__", "b./_proto__"]);
  });

  it("reads back what it writes", () => {
    fc.assert(
      fc.property(tools, (ts) => {
        const json = JSON.parse(JSON.stringify(slugIndexJson(slugIndexOf(ts))));
        const read = slugIndexFromJson(json);
        expect(read && slugIndexJson(read)).toEqual(slugIndexJson(slugIndexOf(ts)));
      }),
    );
    expect(slugIndexJson(slugIndexFromJson({ slugs: "", shared: {} })!)).toEqual({
      slugs: "",
      shared: {},
    });
  });

  it.each<[string, object]>([
    ["no slugs", { shared: {} }],
    ["slugs that are no text", { slugs: ["files_go"], shared: {} }],
    ["no shared", { slugs: "files_go" }],
    ["a shared slug held by one tool", { slugs: "files_go", shared: { files_go: ["a.files/go"] } }],
    [
      "a shared slug that is no slug",
      { slugs: "docs_go", shared: { files_go: ["a.files/go", "b.files/go"] } },
    ],
    ["an identity that is no text", { slugs: "files_go", shared: { files_go: ["a.files/go", 7] } }],
  ])("a header with %s holds no index", (_what, header) => {
    expect(slugIndexFromJson(header)).toBeUndefined();
  });
});
