import { runCli } from "@rukh/testkit/cli";
import { describe, expect, it } from "vitest";
import { useEchoState } from "./_echo.js";

// A strict preset where strict confinement cannot be had (here the owner's
// sandbox.program names no program): no list offers its tools, which no
// call could run. mcp serve (stdio and HTTP) refuses to start, saying why
// and where to look; tools list says the same; a host-trusted preset of the
// same state is served as before.
const at = useEchoState("rukh-cli-strict-missing-", {
  presets: { locked: "strict" },
  config: { sandbox: { program: "/nonexistent/bwrap" } },
});

const rukh = (...args: string[]) => runCli({ args, stateDir: at.root, input: "" });

describe("a strict preset without strict confinement", () => {
  it("is not served: mcp serve refuses to start, naming the reason and doctor", () => {
    const r = rukh("mcp", "serve", "--preset", "locked");
    expect(r.status, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      "preset locked runs its commands strict, and strict confinement is unavailable here",
    );
    expect(r.stderr).toContain("/nonexistent/bwrap");
    expect(r.stderr).toContain("rukh doctor");
    expect(r.stdout).toBe("");
  });

  it("is not listed: tools list says the same, with --json as an error", () => {
    const r = rukh("--json", "tools", "list", "--preset", "locked");
    expect(r.status).toBe(4);
    expect(JSON.parse(r.stdout).error.message).toContain("strict confinement is unavailable here");
    expect(rukh("doctor").stdout).toMatch(/strict profile: unavailable/);
  });

  it("leaves a host-trusted preset of the same state served and listed", () => {
    const listed = rukh("--json", "tools", "list", "--preset", "default");
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).result.tools).toHaveLength(1);
    const served = runCli({
      args: ["mcp", "serve", "--preset", "default"],
      stateDir: at.root,
      input: "",
    });
    expect(served.status, served.stderr).toBe(0);
  });
});
