import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { useSleeperCli } from "../_sleeper.js";

// `docs` renders a revision's reference once and keeps it; what it prints
// never depends on whether the kept copy was there, right, or tampered with.
const { at, rukh } = useSleeperCli("rukh-cli-docs-");
const kept = () => join(at.root, "cache", "docs");
const files = () => readdirSync(kept()).sort();

it("prints the same reference from the kept copy, and renders again when it is damaged", () => {
  const first = rukh("docs");
  expect(first.status, first.stderr).toBe(0);
  expect(first.stdout).toContain("## Commands");
  const [md, sum] = files();
  expect(md).toMatch(/^[0-9a-f]{64}\.md$/);
  expect(sum).toBe(md!.replace(/\.md$/, ".sha256"));
  expect(rukh("docs").stdout).toBe(first.stdout);

  // An edited copy fails its digest: rendered again, never printed.
  writeFileSync(join(kept(), md!), "# forged\n");
  const again = rukh("docs");
  expect(again.stdout).toBe(first.stdout);
  expect(readFileSync(join(kept(), md!), "utf8")).toBe(first.stdout);
  // --json carries the same text.
  expect(JSON.parse(rukh("--json", "docs").stdout).result.markdown).toBe(first.stdout);
});

it("keeps one reference per revision and preset, and only the newest four", () => {
  const before = rukh("docs").stdout;
  expect(rukh("ext", "disable", "fx.sleep").status).toBe(0);
  const disabled = rukh("docs").stdout;
  expect(disabled).not.toBe(before);
  expect(rukh("ext", "enable", "fx.sleep").status).toBe(0);
  rukh("docs", "--preset", "default");
  for (let i = 0; i < 4; i++) {
    expect(rukh("ext", i % 2 === 0 ? "disable" : "enable", "fx.sleep").status).toBe(0);
    expect(rukh("docs").status).toBe(0);
  }
  expect(files().filter((f) => f.endsWith(".md"))).toHaveLength(4);
  expect(files().filter((f) => f.endsWith(".sha256"))).toHaveLength(4);
});
