import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

// The route-cache entry is what help loads of the profile: it must stay
// light. (Which room may import which is scripts/rooms.mjs's check, against
// docs/architecture.md's map.)
const src = fileURLToPath(new URL("../src/", import.meta.url));
const files = (readdirSync(src, { recursive: true }) as string[])
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.split("\\").join("/"));
const roomOf = (file: string) => (file.includes("/") ? file.split("/")[0]! : "");
/** Each import or re-export of a file: its target (a path from src/, or a package), and whether only types. */
const statementsOf = (file: string) =>
  [
    ...readFileSync(join(src, file), "utf8").matchAll(
      /^(?:import|export)\s+(type\s+)?[^;]*?\bfrom\s+"([^"]+)";/gms,
    ),
  ].map((m) => ({
    target: m[2]!.startsWith(".")
      ? normalize(join(dirname(file), m[2]!))
          .split("\\")
          .join("/")
      : m[2]!,
    typeOnly: m[1] !== undefined,
  }));
const importsOf = (file: string) =>
  statementsOf(file)
    .map((s) => s.target)
    .filter((t) => !t.includes(":") && !t.startsWith("@") && t.endsWith(".js"));

it("keeps the route-cache entry light: the routes room and Node's built-ins, nothing else at run time", () => {
  expect(new Set(importsOf("route-cache.ts"))).toEqual(new Set(["routes/index.js"]));
  for (const file of files.filter((f) => roomOf(f) === "routes"))
    for (const { target, typeOnly } of statementsOf(file))
      if (!typeOnly)
        expect(target.startsWith("node:") || roomOf(target) === "routes", file).toBe(true);
});
