import { beforeAll, describe, expect, it } from "vitest";
import { inspector, toolNameOf, useState, type Wire } from "./_helpers.js";

const at = useState();
let greet: string;
let sum: string;

beforeAll(async () => {
  greet = await toolNameOf(at.state, "fx.main/greet");
  sum = await toolNameOf(at.state, "fx.main/sum");
});

async function inspect(era: "legacy" | "modern", ...args: string[]): Promise<Wire> {
  const { out, stderr } = await inspector(at.root, at.work)(era, ...args);
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
