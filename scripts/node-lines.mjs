// The Node release lines Rukh is tested on besides the machine's own, and
// how a test or bench gets one: the npm registry's `node` package, installed
// once per machine into a folder of the temporary directory.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Each other supported release line, at the release tested. */
export const NODE_LINES = ["22.23.3", "24.21.0", "26.10.0"];

/** A Node below what Rukh needs, to see it refused. */
export const TOO_OLD_NODE = "18.20.8";

/**
 * Installs node@`version` (once per machine) and checks that it runs:
 * `{ node }`, its binary, or `{ reason }` why it cannot be had.
 */
export function installNode(version) {
  const dir = join(tmpdir(), `rukh-node-${version}`);
  const node = join(dir, "node_modules", "node", "bin", "node");
  if (!existsSync(node)) {
    mkdirSync(dir, { recursive: true });
    const r = spawnSync(
      "npm",
      ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", `node@${version}`],
      { encoding: "utf8", timeout: 600_000 },
    );
    if (r.status !== 0 || !existsSync(node))
      return {
        reason: `cannot install node@${version}: ${(r.stderr || String(r.error)).slice(-300)}`,
      };
  }
  const v = spawnSync(node, ["--version"], { encoding: "utf8" });
  if (v.stdout.trim() !== `v${version}`)
    return { reason: `node@${version} answers ${JSON.stringify(v.stdout.trim() || v.stderr)}` };
  return { node };
}
