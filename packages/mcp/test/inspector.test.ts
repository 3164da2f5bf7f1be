import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, inspector, makeState, toolNameOf, type Wire } from "./_helpers.js";

let root: string;
let work: string;
let greet: string;
let sum: string;

beforeAll(async () => {
  const s = await makeState();
  root = s.root;
  work = s.work;
  greet = await toolNameOf(s.state, "fx.main/greet");
  sum = await toolNameOf(s.state, "fx.main/sum");
});

afterAll(() => {
  if (work) cleanup(work);
});

async function inspect(era: "legacy" | "modern", ...args: string[]): Promise<Wire> {
  const { out, stderr } = await inspector(root, work)(era, ...args);
  // The server logs the era it serves on stderr, which the Inspector passes through.
  expect(stderr).toContain(`"era":"${era}"`);
  return out;
}

describe.each(["legacy", "modern"] as const)("MCP Inspector CLI, %s era", (era) => {
  it("lists tools", async () => {
    const out = await inspect(era, "--method", "tools/list");
    expect(JSON.stringify(out)).toContain(greet);
  });

  it("calls a tool with --tool-arg", async () => {
    const out = await inspect(
      era,
      "--method",
      "tools/call",
      "--tool-name",
      greet,
      "--tool-arg",
      "name=ivy",
    );
    expect(JSON.stringify(out)).toContain("hello ivy");
  });

  it("calls a tool with --tool-args-json (exact integers)", async () => {
    const out = await inspect(
      era,
      "--method",
      "tools/call",
      "--tool-name",
      sum,
      "--tool-args-json",
      '{"a":20,"b":22}',
    );
    expect(JSON.stringify(out)).toContain('"sum":42');
  });
});
