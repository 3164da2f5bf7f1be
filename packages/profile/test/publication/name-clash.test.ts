import { describe, expect, it, vi } from "vitest";
import { ProfileError, StateDirectory } from "../../src/index.js";
import { descriptor, makePackage, ownerConfig, tempDir } from "../_helpers.js";

// Two tools whose client-fit names cannot be told apart: their slugs are the
// same and, here, so are their fingerprints — what a SHA-256 collision would
// do, made to happen by giving every tool-name fingerprint of a `go` command
// one value. Everything else (store digests, revision ids) hashes as ever.
vi.mock("@rukh/json", async (importOriginal) => {
  const real = await importOriginal<typeof import("@rukh/json")>();
  return {
    ...real,
    sha256Hex: (input: string | Uint8Array) =>
      typeof input === "string" &&
      input.startsWith('["rukh.mcp-tool/1",') &&
      input.endsWith('/go"]')
        ? "0".repeat(64)
        : real.sha256Hex(input),
  };
});

describe("a tool name clash", () => {
  it("stops the publication with tool_name_conflict, naming both commands; active is untouched and no name gets a suffix", async () => {
    const work = tempDir();
    const h = new StateDirectory(tempDir("rukh-clash-"));
    await h.setConfig(
      ownerConfig({
        mcp: { toolNames: "compact" },
        exposure: { extensions: ["acme.files", "acme.team.files"] },
      }) as never,
    );
    const first = await h.install(
      await makePackage(work, descriptor("acme.files", "acme", [{ id: "go", path: ["go-a"] }])),
    );
    const other = await makePackage(
      work,
      descriptor("acme.team.files", "acme", [{ id: "go", path: ["go-b"] }]),
    );
    const refused = await h.install(other).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ProfileError);
    expect((refused as ProfileError).code).toBe("tool_name_conflict");
    expect((refused as ProfileError).message).toMatch(
      /acme\.files\/go.*acme\.team\.files\/go|acme\.team\.files\/go.*acme\.files\/go/,
    );
    expect(await h.activeRevisionId()).toBe(first.revisionId);
    expect(first.projection.tools.map((t) => t.name)).toEqual([
      expect.stringMatching(/^files_go__[g-z]+[0-9a-f]{4,12}$/),
    ]);
  });
});
