import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readActiveRoutes, stateDirVariable } from "@rukh/profile";
import { managed } from "@rukh/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { cachedRoutes, stateDirOf } from "../../src/routes/index.js";
import { bulkDescriptors, makeHome, TOOLS, tempDir } from "../_helpers.js";

// The fast path re-reads what @rukh/profile writes; these cases keep the two in step.
describe("fast route-cache reader agrees with @rukh/profile", () => {
  let home: string;
  beforeAll(async () => {
    home = await makeHome([TOOLS, ...bulkDescriptors(150)]);
  }, 60_000);

  it("gives the same route table as readActiveRoutes", async () => {
    const fast = cachedRoutes(home);
    const slow = await readActiveRoutes(home);
    expect(fast?.revisionId).toBe(slow?.revisionId);
    const commands = fast!.source.commands.map((_, i) => fast!.source.route(i));
    expect(commands).toEqual(slow!.routes.commands);
    expect(fast!.source.groups).toEqual(slow!.routes.groups);
    expect(fast!.source.commands).toEqual(
      slow!.routes.commands.map((c) => ({
        path: c.path,
        aliases: c.aliases,
        summary: c.cli.summary,
      })),
    );
  });

  it("defers to the authoritative path whenever the file is unusual", async () => {
    expect(cachedRoutes(tempDir())).toBeUndefined();
    const root = await makeHome();
    const id = (await readActiveRoutes(root))!.revisionId;
    writeFileSync(join(root, "revisions", `${id}.routes.json`), "{}\n");
    expect(cachedRoutes(root)).toBeUndefined();
    rmSync(join(root, "revisions", `${id}.routes.json`));
    expect(cachedRoutes(root)).toBeUndefined();
  }, 30_000);

  it.each([
    [{ ACME_HOME: "/r" }, "/h", "/r"],
    [{ RUKH_HOME: "/r" }, "/h", "/h"],
    [{}, "/h", "/h"],
    [{ XDG_STATE_HOME: "/x" }, undefined, "/x/acme"],
    [{ ACME_HOME: "", XDG_STATE_HOME: "/x" }, undefined, "/x/acme"],
  ])(
    "finds brand acme's state directory from its own variable only (%j, home %s)",
    (env, h, want) => {
      expect(stateDirOf("acme", env, h)).toBe(want);
    },
  );

  it("names each brand's variable after the brand", () => {
    expect(stateDirVariable("rukh")).toBe("RUKH_HOME");
    expect(stateDirVariable("my-cli")).toBe("MY_CLI_HOME");
    expect(stateDirOf("my-cli", { MY_CLI_HOME: "/m" }, undefined)).toBe("/m");
  });
});

describe("reading only what the typed words need", () => {
  const DEEP = {
    format: "rukh.extension/2",
    id: "fx.deep",
    version: "1.0.0",
    publisher: "acme",
    commands: [
      {
        id: "run",
        path: ["deep", "inner", "run"],
        aliases: [["dr"]],
        summary: "Run deep inside",
        inputs: [],
        execute: managed(),
      },
    ],
  };
  let fast: string;
  let whole: string;
  beforeAll(async () => {
    fast = await makeHome([TOOLS, DEEP, ...bulkDescriptors(250)]);
    whole = tempDir();
    cpSync(fast, whole, { recursive: true });
    // Without its route cache a state directory is routed from the whole table.
    const id = (await readActiveRoutes(whole))!.revisionId;
    rmSync(join(whole, "revisions", `${id}.routes.json`));
  }, 60_000);

  async function run(root: string, argv: readonly string[]) {
    const { createCli } = await import("../../src/index.js");
    let out = "";
    let err = "";
    const cli = createCli({
      brand: "acme",
      env: { ACME_HOME: root },
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (err += t) },
      handleSignals: false,
    });
    const code = await cli.run([...argv]);
    return { code, out, err };
  }

  it.each([
    [[]],
    [["--help"]],
    [["help"]],
    [["help", "files"]],
    [["files"]],
    [["files", "--help"]],
    [["wc", "--help"]],
    [["g1"]],
    [["g2", "c7", "--help"]],
    [["deep"]],
    [["deep", "inner"]],
    [["dr", "--help"]],
    [["hello", "--help"]],
    [["nope"]],
    [["files", "nope"]],
    [["g1", "c77x"]],
    [["__complete", "--", ""]],
    [["__complete", "--", "d"]],
    [["__complete", "--", "files", ""]],
    [["__complete", "--", "g1", "c1"]],
    [["__complete", "--", "deep", "i"]],
    [["__complete", "--", "g2", "c7", "--"]],
    [["completion", "bash"]],
    [["help", "files", "nope"]],
    [["help", "g1", "c77x"]],
    [["help", "--help"]],
    [["help", "wc"]],
  ])("prints for %j what the whole table prints", async (argv) => {
    expect(await run(fast, argv)).toEqual(await run(whole, argv));
  });
});

describe("a damaged or missing route cache", () => {
  it.each([
    ["damaged", "{not json\n"],
    ["missing", undefined],
  ])(
    "%s: the CLI rebuilds the routes from the revision",
    async (_name, text) => {
      const { createCli } = await import("../../src/index.js");
      const root = await makeHome();
      const id = (await readActiveRoutes(root))!.revisionId;
      const file = join(root, "revisions", `${id}.routes.json`);
      if (text === undefined) rmSync(file);
      else writeFileSync(file, text);
      let out = "";
      const cli = createCli({
        brand: "acme",
        env: { ACME_HOME: root },
        stdout: { write: (s: string) => (out += s) },
        stderr: { write: () => {} },
        handleSignals: false,
      });
      expect(await cli.run(["files", "--help"])).toBe(0);
      expect(out).toContain("count");
      out = "";
      expect(await cli.run(["hello", "x"])).toBe(0);
      expect(out).toBe("hello x\n");
    },
    30_000,
  );
});
