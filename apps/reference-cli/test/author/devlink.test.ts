import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MODERN_META } from "@rukh/testkit/mcp";
import { beforeAll, describe, expect, it } from "vitest";
import { authorWork, mcpRequests, toolCall } from "../_author.js";

// The development loop from the built CLI: `ext link` runs an unsigned
// package from its directory, every edit is what the next call runs, it is
// marked wherever it shows, and no MCP endpoint sees it unless the owner
// names it there.
const { work, env, rukh } = authorWork("rukh-cli-dev-", undefined, true);
const pkg = join(work, "hello");
const handlers = join(pkg, "src", "handlers.mjs");
const descriptorFile = join(pkg, "rukh-extension.json");

const list = { method: "tools/list", params: { _meta: MODERN_META } };
const call = (name: string) => toolCall(name, { name: "Ada" });
const mcp = (args: string[], requests: object[]) => mcpRequests(env, args, requests);

describe("ext link", () => {
  beforeAll(() => {
    expect(rukh("ext", "init", pkg, "--id", "jane.hello").status).toBe(0);
  });

  it("runs an unsigned package from its directory, no key and no trust needed", () => {
    const linked = rukh("ext", "link", pkg);
    expect(linked.status, linked.stderr).toBe(0);
    expect(linked.stdout).toContain(`linked jane.hello from ${pkg} [dev]`);
    const ran = rukh("hello", "hello", "Ada");
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toBe("Hello, Ada!\n");
    expect(rukh("ext", "link", pkg).stdout).toContain("already linked");
  });

  it("runs each edit on the next call, with no re-sign and no re-link", () => {
    writeFileSync(handlers, readFileSync(handlers, "utf8").replace("Hello, ", "Hi, "));
    const ran = rukh("hello", "hello", "Ada");
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toBe("Hi, Ada!\n");
    expect(ran.stderr).toContain("[dev] jane.hello changed: linked again");
    // Unchanged: nothing is linked or published again.
    const again = rukh("hello", "hello", "Ada");
    expect(again.stderr).toBe("");

    // A descriptor edit: help, read-only, says it changed and publishes nothing; the next call links it.
    const d = JSON.parse(readFileSync(descriptorFile, "utf8"));
    d.commands[0].summary = "Greet someone warmly";
    writeFileSync(descriptorFile, JSON.stringify(d, null, 2));
    const active = () => JSON.parse(rukh("--json", "profile", "show").stdout).result.id;
    const before = active();
    const help = rukh("hello", "--help");
    expect(help.stdout).not.toContain("Greet someone warmly");
    expect(help.stderr).toContain(
      "[dev] jane.hello changed since it was linked: this shows its last copy; the next call links it again",
    );
    expect(rukh("--help").status).toBe(0);
    expect(active()).toBe(before);
    expect(rukh("hello", "hello", "Ada").stderr).toContain(
      "[dev] jane.hello changed: linked again",
    );
    expect(active()).not.toBe(before);
    expect(rukh("hello", "--help").stdout).toContain("hello  Greet someone warmly [dev]");
  });

  it("keeps the last good copy, and says why, while the directory is broken", () => {
    const good = readFileSync(descriptorFile, "utf8");
    writeFileSync(descriptorFile, "{ broken");
    const ran = rukh("hello", "hello", "Ada");
    expect(ran.status).toBe(0);
    expect(ran.stdout).toBe("Hi, Ada!\n");
    expect(ran.stderr).toContain(
      `warning: [dev] jane.hello (${pkg}) is not linked again, its last copy runs: rukh-extension.json is not a valid descriptor: line 1:3 (byte 2)`,
    );
    writeFileSync(descriptorFile, good);
  });

  it("is linked again by a server, while a listing only says it changed", async () => {
    writeFileSync(handlers, readFileSync(handlers, "utf8").replace("Hi, ", "Hey, "));
    const listed = rukh("tools", "list");
    expect(listed.stderr).toContain("[dev] jane.hello changed since it was linked");
    expect(rukh("tools", "list").stderr).toContain("[dev] jane.hello changed since it was linked");
    writeFileSync(handlers, readFileSync(handlers, "utf8").replace("Hey, ", "Hi, "));
    // A server starts on the directory as it is now (its list is empty: no endpoint names it).
    const [answer] = await mcp(["--preset", "default"], [list]);
    expect(answer!.result.tools).toEqual([]);
    expect(rukh("ext", "list").stdout).toContain("jane.hello@0.1.0");
    expect(rukh("hello", "hello", "Ada").stderr).toBe("");
  });

  it("is marked dev in help, ext list, runs and the journal", () => {
    expect(rukh("--help").stdout).toMatch(/hello …\s+Commands of jane\.hello \[dev\]/);
    const help = rukh("hello", "hello", "--help").stdout;
    expect(help).toContain(`[dev] Linked for development from ${pkg}`);
    expect(rukh("ext", "list").stdout).toContain(`[dev] linked from ${pkg}`);
    expect(rukh("runs", "list").stdout).toContain("jane.hello/hello [dev]");
    // The calls of the linked command; the link itself is the owner's own change (builtin:ext link).
    const runs = JSON.parse(rukh("--json", "runs", "list").stdout).result.runs.filter(
      (r: { command: string }) => !r.command.startsWith("builtin:"),
    );
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r: { dev?: boolean }) => r.dev === true)).toBe(true);
  });

  it("is hidden from every MCP endpoint unless the owner names it there", async () => {
    expect(rukh("expose", "add", "jane.hello").status).toBe(0);
    // `ext link` allowed it in the default preset, as an install would.
    // The preset's view is what its server serves: the link is not listed, and it says why.
    const view = rukh("tools", "list", "--preset", "default").stdout;
    expect(view).toContain("0 tools in 1 page for preset default");
    expect(view).toContain("not listed: 1 tool of development links (jane.hello)");
    const name = JSON.parse(rukh("--json", "tools", "list", "--preset", "default").stdout).result
      .hiddenDevTools[0].name as string;

    // A real server for that preset neither lists nor runs it, by name or otherwise.
    const [listed, called] = await mcp(["--preset", "default"], [list, call(name)]);
    expect(listed!.result.tools).toEqual([]);
    expect(called!.error?.message ?? called!.result?.content?.[0]?.text).toMatch(/unknown tool/i);

    // Named for one endpoint: that endpoint lists and calls it; the default still does not.
    const config = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
    config.mcp = {
      ...config.mcp,
      endpoints: {
        dev: { preset: "default", devExtensions: ["jane.hello"] },
        other: { preset: "default" },
      },
    };
    writeFileSync(join(work, "owner.json"), JSON.stringify(config));
    const set = rukh("profile", "set-config", join(work, "owner.json"));
    expect(set.status, set.stderr).toBe(0);
    // A new revision: every tool has a new name, and the old one is stale.
    const named = JSON.parse(rukh("--json", "tools", "list", "--endpoint", "dev").stdout).result
      .tools[0].name as string;
    expect(named).not.toBe(name);
    const [devList, devCall] = await mcp(["--endpoint", "dev"], [list, call(named)]);
    expect(devList!.result.tools.map((t: { name: string }) => t.name)).toEqual([named]);
    expect(devCall!.result.structuredContent, JSON.stringify(devCall)).toMatchObject({
      outcome: "succeeded",
    });
    expect(devCall!.result.content[0].text).toContain("Hi, Ada!");
    expect(rukh("tools", "list", "--endpoint", "dev").stdout).toContain("(jane.hello/hello) [dev]");
    expect(rukh("tools", "list", "--endpoint", "other").stdout).toContain("0 tools");
    const [plain] = await mcp(["--endpoint", "other"], [list]);
    expect(plain!.result.tools).toEqual([]);
  });

  it("never replaces an installed package, is never replaced by one, and unlinks", () => {
    const key = JSON.parse(rukh("--json", "keygen", "jane", "--out", work).stdout).result;
    expect(rukh("trust", "add", key.publicKey, "--publisher", "jane").status).toBe(0);
    const signed = join(work, "signed");
    expect(rukh("ext", "init", signed, "--id", "jane.hello").status).toBe(0);
    expect(rukh("ext", "sign", signed, "--key", key.privateKey).status).toBe(0);
    const over = rukh("ext", "install", signed);
    expect(over.status).not.toBe(0);
    expect(over.stderr).toContain(
      `is linked for development from ${pkg}; unlink it before installing`,
    );

    const notDev = rukh("ext", "unlink", "jane.other");
    expect(notDev.status).not.toBe(0);
    const unlinked = rukh("ext", "unlink", "jane.hello");
    expect(unlinked.status, unlinked.stderr).toBe(0);
    expect(rukh("hello", "hello", "Ada").status).toBe(2);

    expect(rukh("ext", "install", signed).status).toBe(0);
    const under = rukh("ext", "link", pkg);
    expect(under.status).not.toBe(0);
    expect(under.stderr).toContain('is installed from publisher "jane"; remove it before linking');
    const refused = rukh("ext", "unlink", "jane.hello");
    expect(refused.status).toBe(4);
    expect(refused.stderr).toContain("is an installed package, not a development link");
  });
});
