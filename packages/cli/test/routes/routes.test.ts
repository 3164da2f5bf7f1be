import type { CliRouteTable } from "@rukh/profile";
import { describe, expect, it } from "vitest";
import { RouteIndex, tableSource } from "../../src/routes/index.js";

const spec = (path: string[]) => ({
  identity: `x/${path.join("_")}`,
  path,
  aliases: [],
  summary: `Run ${path.join(" ")}`,
  passthrough: false,
  flags: [],
  positionals: [],
});
const table: CliRouteTable = {
  commands: [["files", "count"], ["files", "copy"], ["hello"], ["net", "http", "get"]].map(
    (path) => ({
      extension: "x",
      identity: `x/${path.join("_")}`,
      path,
      aliases: path[0] === "hello" ? [["hi"]] : [],
      cli: spec(path),
    }),
  ),
  groups: [{ path: ["files"], summary: "Files", extensions: ["x"] }],
};
const index = new RouteIndex(tableSource(table), [
  { path: ["install"], summary: "Install", run: () => 0 },
  { path: ["hello"], summary: "Built-in hello wins", run: () => 0 },
]);

describe("RouteIndex", () => {
  it.each([
    [[], "root"],
    [["files"], "group files"],
    [["files", "count", "a.txt"], "target files count (2 words)"],
    [["hi", "--x"], "target hi (1 words)"],
    [["hello"], "target hello (1 words)"],
    [["net"], "group net"],
    [["net", "http"], "group net http"],
    [["net", "http", "get", "-v"], "target net http get (3 words)"],
    [["files", "cuont"], "unknown files cuont"],
    [["nope", "files"], "unknown nope"],
    [["--help"], "root"],
  ])("resolves %j as %s", (argv, expected) => {
    const r = index.resolve(argv);
    const shown =
      r.kind === "root"
        ? "root"
        : r.kind === "group"
          ? `group ${r.group.path.join(" ")}`
          : r.kind === "target"
            ? `target ${r.entry.path.join(" ")} (${r.words} words)`
            : `unknown ${r.typed.join(" ")}`;
    expect(shown).toBe(expected);
  });

  it("lets a built-in win a path collision", () => {
    const r = index.resolve(["hello"]);
    expect(r.kind === "target" && r.entry.target.kind).toBe("builtin");
    // The alias of the shadowed command still routes to it.
    const hi = index.resolve(["hi"]);
    expect(hi.kind === "target" && hi.entry.target.kind).toBe("command");
  });

  it.each([
    [["files", "cuont"], "files count"],
    [["fils"], "files"],
    [["instal"], "install"],
    [["net", "htp", "get"], "net http get"],
    [["zzzzzzzz"], undefined],
  ])("suggests for %j: %s", (typed, expected) => {
    expect(index.suggest(typed)?.join(" ")).toBe(expected);
  });

  it("lists a group's children: groups first, then commands", () => {
    const root = index.children([]);
    expect(root.groups.map((g) => g.path.join(" "))).toEqual(["files", "net"]);
    expect(root.entries.map((e) => e.path.join(" "))).toEqual(["hello", "hi", "install"]);
  });
});
