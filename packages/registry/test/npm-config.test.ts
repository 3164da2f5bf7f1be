import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { npmConfig, registryOf } from "../src/index.js";

// npm's configuration as npm reads it where the command runs: the project's
// `.npmrc` and the user's; a file called `npmrc` (no dot) in the working
// folder is no npm installation's built-in configuration.
const work = mkdtempSync(join(tmpdir(), "rukh-npm-config-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npmConfig", () => {
  it("reads the project's .npmrc and never a plain npmrc of the working folder", async () => {
    writeFileSync(join(work, "package.json"), "{}\n");
    writeFileSync(join(work, "npmrc"), "registry=http://127.0.0.1:9/planted/\n");
    const userconfig = join(work, "user-npmrc");
    writeFileSync(userconfig, "@jane:registry=http://127.0.0.1:9/user/\n");
    const env = { HOME: work, npm_config_userconfig: userconfig };
    const npm = await npmConfig({ cwd: work, env });
    expect(registryOf("@jane/hello", npm)).toBe("http://127.0.0.1:9/user/");
    expect(registryOf("plain", npm)).not.toContain("planted");
    writeFileSync(join(work, ".npmrc"), "registry=http://127.0.0.1:9/project/\n");
    expect(registryOf("plain", await npmConfig({ cwd: work, env }))).toBe(
      "http://127.0.0.1:9/project/",
    );
  });

  it("reads a user configuration that is a file called npmrc in the working folder once", async () => {
    const env = { HOME: work, npm_config_userconfig: join(work, "npmrc") };
    const npm = await npmConfig({ cwd: work, env });
    expect(registryOf("plain", npm)).toBe("http://127.0.0.1:9/project/");
  });
});
