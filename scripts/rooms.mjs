#!/usr/bin/env node
// Holds the source tree to the room map of docs/architecture.md ("Rooms"):
// no source folder over 20 files; each building's sub-folders exactly the
// rooms the map names, each with an index.ts; a room's files import another
// room only through a door (its index.ts, which opens with a comment saying
// what the room holds, or a file whose name does not start with `_`) and only a room its row allows; no room imports the files
// at its building's top (the entries, which may reach any room). A package
// README with a Rooms table of its own must allow the same imports. madge
// reads the imports (type-only and dynamic ones included); this compares.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { importGraph, ROOT } from "./_import-graph.mjs";

const MAP = "docs/architecture.md";
const MAX_FILES = 20;
const problems = [];

/** The rooms a "may import" cell names: `call/`, call, `model` (types only), or — for none. */
const roomsIn = (cell) =>
  cell
    .replace(/\([^)]*\)/g, "")
    .split(",")
    .map((w) => w.replace(/[`/\s]/g, ""))
    .filter((w) => w !== "" && w !== "—");

/** The rows of the tables under `heading` in Markdown `text`: room → the rooms it may import. */
function tableRooms(text) {
  const rooms = new Map();
  for (const line of text.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const room = /^`([a-z-]+)\/`$/.exec(cells[1] ?? "")?.[1];
    if (room !== undefined) rooms.set(room, roomsIn(cells.at(-2) ?? ""));
  }
  return rooms;
}

/** Building (a folder from the root) → its rooms, as the map draws them. */
function buildings() {
  const text = readFileSync(join(ROOT, MAP), "utf8");
  const start = text.indexOf("\n## Rooms\n");
  if (start < 0) throw new Error(`${MAP}: no "## Rooms" section`);
  const section = text.slice(start + 1).split(/\n## /)[0];
  const found = new Map();
  for (const part of section.split(/\n### /).slice(1)) {
    const folder = /^`([^`]+)`/.exec(part)?.[1];
    if (folder === undefined) throw new Error(`${MAP}: a Rooms heading names no folder`);
    found.set(folder, tableRooms(part));
  }
  return found;
}

const isDir = (p) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** Every source folder of the packages and apps, from the root. */
function sourceFolders() {
  const out = [];
  const walk = (rel) => {
    out.push(rel);
    for (const e of readdirSync(join(ROOT, rel), { withFileTypes: true }))
      if (e.isDirectory()) walk(`${rel}/${e.name}`);
  };
  for (const top of ["packages", "apps"])
    for (const name of readdirSync(join(ROOT, top)))
      if (isDir(join(ROOT, top, name, "src"))) walk(`${top}/${name}/src`);
  return out;
}

const folders = sourceFolders();
for (const f of folders) {
  const files = readdirSync(join(ROOT, f), { withFileTypes: true }).filter((e) => e.isFile());
  if (files.length > MAX_FILES)
    problems.push(`${f} holds ${files.length} files; a room holds at most ${MAX_FILES}`);
}

const map = buildings();
const graph = (await importGraph(folders.filter((f) => f.endsWith("/src")))).obj();
for (const [building, rooms] of map) {
  const present = readdirSync(join(ROOT, building), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  for (const name of present)
    if (!rooms.has(name)) problems.push(`${building}/${name}/ is not a room of ${MAP}`);
  for (const [room, may] of rooms) {
    if (!present.includes(room))
      problems.push(`${MAP} names ${building}/${room}/, which does not exist`);
    else if (
      !isDir(join(ROOT, building, room)) ||
      !statSync(join(ROOT, building, room, "index.ts"), { throwIfNoEntry: false })
    )
      problems.push(`${building}/${room}/ has no index.ts, its door`);
    else if (!readFileSync(join(ROOT, building, room, "index.ts"), "utf8").startsWith("// "))
      problems.push(
        `${building}/${room}/index.ts does not open with a comment saying what the room holds`,
      );
    for (const other of may)
      if (!rooms.has(other))
        problems.push(`${MAP}: ${building}/${room}/ may import ${other}/, which is no room`);
  }
  const roomOf = (file) => {
    const rest = file.slice(building.length + 1);
    return rest.includes("/") ? rest.split("/")[0] : "";
  };
  for (const [file, targets] of Object.entries(graph)) {
    if (!file.startsWith(`${building}/`)) continue;
    const room = roomOf(file);
    for (const target of targets) {
      if (!target.startsWith(`${building}/`)) continue;
      const other = roomOf(target);
      if (other === room) continue;
      if (room === "") continue;
      if (other === "") problems.push(`${file} imports ${target}, an entry above every room`);
      else if (target.split("/").pop().startsWith("_"))
        problems.push(
          `${file} imports ${target} past the door of ${other}/ (import ${other}/index.ts)`,
        );
      else if (!rooms.get(room).includes(other))
        problems.push(
          `${file} imports ${target}: ${room}/ may not import ${other}/ (${MAP} allows ${rooms.get(room).join(", ") || "none"})`,
        );
    }
  }
  const readme = join(ROOT, building.replace(/\/src$/, ""), "README.md");
  const own = statSync(readme, { throwIfNoEntry: false })
    ? readFileSync(readme, "utf8").split("\n## Rooms\n")[1]?.split(/\n## /)[0]
    : undefined;
  if (own !== undefined)
    for (const [room, may] of tableRooms(own)) {
      const drawn = rooms.get(room);
      if (drawn === undefined)
        problems.push(`${readme.slice(ROOT.length)} names room ${room}/, which ${MAP} does not`);
      else if ([...may].sort().join() !== [...drawn].sort().join())
        problems.push(
          `${readme.slice(ROOT.length)}: ${room}/ may import ${may.join(", ") || "none"}; ${MAP} says ${drawn.join(", ") || "none"}`,
        );
    }
}

if (problems.length > 0) {
  console.log(`${problems.length} room problem(s):`);
  for (const p of problems) console.log(`  ${p}`);
  process.exit(1);
}
console.log(
  `${map.size} buildings, ${[...map.values()].reduce((n, r) => n + r.size, 0)} rooms, ${folders.length} source folders: every import through a door the map allows`,
);
