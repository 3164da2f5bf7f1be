// The import graph of the workspace's sources, as madge reads it: every
// import, re-export, type import and dynamic import of every `.ts` file
// under the given folders, keyed by its path from the repository root.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import madge from "madge";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The graph of the `.ts` files under `folders` (paths from the root): file → the files it imports. */
export async function importGraph(folders) {
  const found = await madge(
    folders.map((f) => join(ROOT, f)),
    {
      baseDir: ROOT,
      fileExtensions: ["ts"],
      excludeRegExp: [/\.d\.ts$/],
      tsConfig: join(ROOT, "tsconfig.base.json"),
      detectiveOptions: { ts: { skipTypeImports: false, skipAsyncImports: false } },
    },
  );
  return found;
}
