// The publication's check of client-fit names hashes only what can clash:
// tools whose slug another entry shares. Fingerprints of commands named `go`
// are all one value here (what a SHA-256 collision would do), so that clashes
// happen; every fingerprint asked for is counted.
import fc from "fast-check";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { checkClientFitDigits, clientFitNames } from "../../src/projection/_tool-names.js";

const hashed: string[] = [];
vi.mock("@rukh/json", async (importOriginal) => {
  const real = await importOriginal<typeof import("@rukh/json")>();
  return {
    ...real,
    sha256Hex: (input: string | Uint8Array) => {
      if (typeof input !== "string" || !input.startsWith('["rukh.mcp-tool/1",'))
        return real.sha256Hex(input);
      hashed.push(input);
      return input.endsWith('/go"]') ? "0".repeat(64) : real.sha256Hex(input);
    },
  };
});

const revision = { revisionId: "a".repeat(64), sequence: 7 };
beforeEach(() => {
  hashed.length = 0;
});

/** What a call gives: undefined, or the message it threw. */
function outcome(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

describe("the publication's client-fit check", () => {
  it("hashes none of 10,000 tools whose slugs are all their own, and each tool that shares its slug", () => {
    const unique = Array.from({ length: 10_000 }, (_, i) => `acme.e${i}/c${i % 10}`);
    checkClientFitDigits(revision, ["acme"], unique);
    expect(hashed).toEqual([]);
    // Two extensions whose last id word is the same give their `sync` commands one slug.
    checkClientFitDigits(revision, ["acme"], [...unique, "acme.a.files/sync", "acme.b.files/sync"]);
    expect(hashed).toHaveLength(2);
    // Under two namespaces every name is measured against its twin: all are hashed.
    hashed.length = 0;
    checkClientFitDigits(revision, ["acme", "other"], unique.slice(0, 50));
    expect(hashed).toHaveLength(100);
  });

  it("refuses exactly what naming them all refuses, naming the same two commands", () => {
    const identity = fc
      .tuple(
        fc.constantFrom("acme.files", "acme.team.files", "acme.web", "acme.x.web"),
        fc.constantFrom("go", "sync", "list", "go_"),
      )
      .map(([e, c]) => `${e}/${c}`);
    fc.assert(
      fc.property(
        fc.uniqueArray(identity, { maxLength: 12 }),
        fc.constantFrom(["acme"], ["acme", "ns-b"]),
        (identities, namespaces) => {
          const checked = outcome(() => checkClientFitDigits(revision, namespaces, identities));
          const named = outcome(() => clientFitNames(revision, namespaces, identities));
          expect(checked).toBe(named);
          if (checked !== undefined) expect(checked).toMatch(/share their first 12/);
        },
      ),
      { numRuns: 300 },
    );
  });
});
