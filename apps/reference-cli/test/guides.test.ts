import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { GUIDES, generatedRegions, guideDrift, withRegions } from "../scripts/guides.mjs";
import { adminBuiltins } from "../src/admin/index.js";
import { MCP_CLIENTS } from "../src/admin/mcp/_clients.js";

// The guides' tables of administration commands, their options and the MCP
// clients are generated from the CLI's own declarations (`pnpm guides`);
// this test is the byte check that fails when a guide says anything else.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const read = (file: string) => readFileSync(`${root}${file}`, "utf8");

it("holds every generated region of every guide exactly as the declarations produce it", async () => {
  expect(await guideDrift(root)).toEqual([]);
});

it("finds a region that differs from the declarations, byte for byte", async () => {
  const regions: Map<string, string> = await generatedRegions();
  const [file, names] = Object.entries(GUIDES as Record<string, string[]>)[0]!;
  const text = read(file);
  expect(withRegions(text, regions, names, file)).toBe(text);
  const region = regions.get(names[0]!)!;
  const edited = text.replace(region, region.replace("|", "| "));
  expect(edited).not.toBe(text);
  expect(withRegions(edited, regions, names, file)).toBe(text);
  // A guide without its markers is refused, not silently left as it is.
  expect(() => withRegions("# no markers\n", regions, names, file)).toThrow(names[0]);
});

it("lists what the owner guide and the MCP guides were missing", () => {
  const owner = read("docs/owner-guide.md");
  for (const words of [
    "`install --client <",
    "`serve [--endpoint <string>] [--preset <string>] [--launch <string>] [--http <string>] [--log-level <info\\|warn\\|silent>]`",
    "`list [--preset <string>] [--endpoint <string>] [--check]",
    "`keygen <publisher> [--out <string>]`",
  ])
    expect(owner).toContain(words);
  for (const client of MCP_CLIENTS) {
    expect(owner).toContain(client);
    for (const guide of ["docs/mcp.md", "docs/mcp-clients.md"])
      expect(read(guide), `${guide}: ${client}`).toContain(`\`${client}\``);
  }
  // Where a guide cannot be generated it is checked: the files `mcp install` writes, one row a client.
  const clientsGuide = read("docs/mcp-clients.md");
  const fileTable = clientsGuide.slice(clientsGuide.indexOf("| client | file |"));
  const rows = fileTable.slice(0, fileTable.indexOf("\n\n")).split("\n").slice(2);
  const install = adminBuiltins({ brand: "rukh", version: "0", executable: "rukh" }).find(
    (b) => b.path.join(" ") === "mcp install",
  )!;
  const writes = (install.inputs as { id: string; values?: string[] }[]).find(
    (i) => i.id === "client",
  )!.values!;
  expect(rows.map((r) => r.split("`")[1]).sort()).toEqual([...writes].sort());
  // Prose that names clients one by one drifts: the guides point at the generated table.
  expect(read("docs/mcp.md")).not.toContain("Claude Code, Claude Desktop, VS Code and");
  expect(read("README.md")).not.toContain("Claude Code, Claude Desktop, VS Code and");
  expect(read("docs/getting-started.md")).not.toContain("Claude Code, Claude Desktop, VS Code,");
});
