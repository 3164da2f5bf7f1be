import { exposedState, fixturePreset, machine, managed, removeDir, str } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A strict preset where strict confinement cannot be had (here the owner's
// sandbox.program names no program): no list offers its tools, which no
// call could run. mcp serve (stdio and HTTP) refuses to start, saying why
// and where to look; tools list says the same; a host-trusted preset of the
// same state is served as before.
const at = { root: "", work: "" };
beforeAll(async () => {
  const preset = (enforcement: string) =>
    fixturePreset({ commands: ["fx.echo/*"], deadlineMs: 30_000, enforcement });
  Object.assign(
    at,
    await exposedState({
      prefix: "rukh-cli-strict-missing-",
      endpointNamespace: "acme-strict",
      presets: { default: preset("host-trusted"), locked: preset("strict") },
      config: { sandbox: { program: "/nonexistent/bwrap" } },
      packages: [
        {
          descriptor: {
            format: "rukh.extension/2",
            id: "fx.echo",
            version: "1.0.0",
            publisher: "acme",
            commands: [
              {
                id: "say",
                path: ["say"],
                summary: "Say a name back",
                inputs: [str("name", { required: true })],
                execute: managed({ kind: "text" }, "bin/say.mjs"),
                machine: machine(),
              },
            ],
          },
          programs: {
            "bin/say.mjs": `import { runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: { "fx.echo/say": (ctx) => textResult(ctx.inputs.name) } });
`,
          },
        },
      ],
    }),
  );
});
afterAll(() => removeDir(at.work));

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
