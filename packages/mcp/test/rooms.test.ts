import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The rooms of src/ as the README's "Rooms" table draws them: each room a
// folder of at most 20 files whose index.ts says what it is, entered from
// another room only through that index, and only from a room the table lets
// import it. The table is the map; this holds the code to it.
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(PACKAGE, "src");

/** Room → the rooms it may import, read from the README's table. */
function map(): Map<string, readonly string[]> {
  const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
  const table = readme.slice(readme.indexOf("## Rooms"));
  const rooms = new Map<string, readonly string[]>();
  for (const line of table.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const room = /^`([a-z]+)\/`$/.exec(cells[1] ?? "")?.[1];
    if (room === undefined) continue;
    const may = [...(cells[4] ?? "").matchAll(/`([a-z]+)\/`/g)].map((m) => m[1]!);
    rooms.set(room, may);
  }
  return rooms;
}

const ROOMS = map();
const FILES = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) =>
  f.endsWith(".ts"),
);
const roomOf = (file: string) => (file.includes("/") ? file.slice(0, file.indexOf("/")) : "");

/** Every relative import of `file` (src-relative), resolved to a src-relative path. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const specs = [...text.matchAll(/(?:from|import\()\s*"(\.[^"]+)"/g)].map((m) => m[1]!);
  return specs.map((s) =>
    relative(SRC, normalize(join(SRC, dirname(file), s))).replace(/\.js$/, ".ts"),
  );
}

it("draws every folder of src as a room, and only those", () => {
  const folders = readdirSync(SRC).filter((f) => statSync(join(SRC, f)).isDirectory());
  expect([...ROOMS.keys()].sort()).toEqual(folders.sort());
});

describe.each([...ROOMS])("room %s/", (room, may) => {
  const files = FILES.filter((f) => roomOf(f) === room);

  it("holds at most 20 files, an index among them that says what the room is", () => {
    expect(files.length).toBeLessThanOrEqual(20);
    const index = readFileSync(join(SRC, room, "index.ts"), "utf8");
    expect(index).toMatch(/^\/\/ \S/);
    expect(index).toMatch(/Steps:/);
  });

  it("imports other rooms only through their index, and only those it may", () => {
    const wrong = files.flatMap((f) =>
      importsOf(f)
        .filter((target) => roomOf(target) !== room)
        .filter((target) => !may.includes(roomOf(target)) || !target.endsWith("/index.ts"))
        .map((target) => `${f} -> ${target}`),
    );
    expect(wrong).toEqual([]);
  });
});

it("has the public surface import rooms through their index only", () => {
  const wrong = importsOf("index.ts").filter(
    (target) => !ROOMS.has(roomOf(target)) || !target.endsWith("/index.ts"),
  );
  expect(wrong).toEqual([]);
});
