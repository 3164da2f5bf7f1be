import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { publicPackages } from "../../../scripts/pack-workspace.mjs";

// What `pnpm release` relies on before it publishes anything.
const root = fileURLToPath(new URL("../../../", import.meta.url));

describe("the release configuration", () => {
  it("moves every public package together: one fixed group names them all", () => {
    const config = JSON.parse(readFileSync(join(root, ".changeset/config.json"), "utf8"));
    expect(config.fixed).toHaveLength(1);
    const fixed = new Set<string>(config.fixed[0]);
    expect(
      publicPackages()
        .map((p) => p.name)
        .filter((name) => !fixed.has(name)),
    ).toEqual([]);
  });
});
