import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

// The rooms of src/, from the top floor down, and the rooms each may import
// (the README's table). The entries and StateDirectory (`_state.ts`) stand
// above every room at src/ itself; no room imports them.
const ROOMS: Readonly<Record<string, readonly string[]>> = {
  publication: ["projection", "package", "state-dir", "config", "routes", "model"],
  projection: ["config", "model"],
  package: ["state-dir", "config", "routes", "model"],
  "state-dir": ["config", "routes", "model"],
  config: ["model"],
  routes: ["model"],
  model: [],
};

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

it("has exactly these rooms, each at most 20 files with a door that says what it is", () => {
  expect(new Set(files.map(roomOf).filter((r) => r !== ""))).toEqual(new Set(Object.keys(ROOMS)));
  for (const room of Object.keys(ROOMS)) {
    const own = files.filter((f) => roomOf(f) === room);
    expect(own.length, room).toBeLessThanOrEqual(20);
    expect(readFileSync(join(src, room, "index.ts"), "utf8"), room).toMatch(
      new RegExp(`^// Room ${room}/ — `),
    );
  }
});

it("imports another room only through its door, and only a room below it", () => {
  const wrong: string[] = [];
  for (const file of files) {
    const room = roomOf(file);
    for (const target of importsOf(file)) {
      const other = roomOf(target);
      if (other === room) continue;
      if (other === "") wrong.push(`${file} imports ${target}, above every room`);
      else if (!target.endsWith("/index.js")) wrong.push(`${file} imports ${target} past its door`);
      else if (room !== "" && !ROOMS[room]!.includes(other))
        wrong.push(`${file}: ${room}/ may not import ${other}/`);
    }
  }
  expect(wrong).toEqual([]);
});

it("keeps the route-cache entry light: the routes room and Node's built-ins, nothing else at run time", () => {
  expect(new Set(importsOf("route-cache.ts"))).toEqual(new Set(["routes/index.js"]));
  for (const file of files.filter((f) => roomOf(f) === "routes"))
    for (const { target, typeOnly } of statementsOf(file))
      if (!typeOnly)
        expect(target.startsWith("node:") || roomOf(target) === "routes", file).toBe(true);
});
