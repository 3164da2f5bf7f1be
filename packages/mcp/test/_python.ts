import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The Python MCP SDK the client tests run, pinned. */
export const PYTHON_MCP = "mcp==2.3.0";

/**
 * A folder with the Python `mcp` package (installed by pip once per machine,
 * into the temporary directory), to put on PYTHONPATH; or why there is none.
 */
export function pythonMcp(): { path: string } | { skip: string } {
  const dir = join(tmpdir(), `rukh-python-${PYTHON_MCP.replace("==", "-")}`);
  const probe = spawnSync("python3", ["-c", "import mcp"], {
    encoding: "utf8",
    env: { ...process.env, PYTHONPATH: dir },
  });
  if (probe.error !== undefined) return { skip: "python3 is not installed" };
  if (probe.status === 0) return { path: dir };
  const pip = spawnSync(
    "python3",
    ["-m", "pip", "install", "--quiet", "--target", dir, PYTHON_MCP],
    { encoding: "utf8", timeout: 300_000 },
  );
  if (pip.status !== 0)
    return {
      skip: `pip cannot install ${PYTHON_MCP} here: ${(pip.stderr || String(pip.error)).trim().split("\n").pop()}`,
    };
  return { path: dir };
}
