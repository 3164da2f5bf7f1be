import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { StateDirectory } from "@rukh/profile";
import { FIXTURE_PUB, removeDir, tempDir, writeHiFixturePackage } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { afterAll, expect, it } from "vitest";

// Installing a new extension is one publication: there is no revision in
// which it is installed but not allowed, so no crash can leave it that way.
const work = tempDir("rukh-cli-install-");
afterAll(() => removeDir(work));

/** A signed package of extension `id` with one command, `hi`, at the word `word`, which answers that word. */
const oneCommand = (id: string, word: string) =>
  writeHiFixturePackage({ parent: work, id, version: "1.0.0", path: [word], text: word });

it("publishes a new extension and its default-preset pattern in one revision, from an empty state too", async () => {
  const root = join(work, "home");
  const rukh = (...args: string[]) => runCli({ args, stateDir: root });
  const pkg = await oneCommand("fx.one", "hi");
  const key = join(work, "acme.pub");
  writeFileSync(key, `${FIXTURE_PUB}\n`);
  const state = new StateDirectory(root);
  expect(rukh("trust", "add", key, "--publisher", "acme", "--namespace", "fx.*").status).toBe(0);
  const before = (await state.history()).length;
  const installed = rukh("ext", "install", pkg);
  expect(installed.status).toBe(0);
  const history = await state.history();
  expect(history.length).toBe(before + 1);
  const active = await state.readRevision((await state.activeRevisionId())!);
  expect(active.extensions.map((e) => e.id)).toEqual(["fx.one"]);
  expect(active.config.presets[active.config.defaultPreset]!.commands).toContain("fx.one/*");
  expect(rukh("hi").stdout).toBe("hi");
});

it("installs several packages in one publication, and refuses all of them if one is refused", async () => {
  const root = join(work, "several");
  const rukh = (...args: string[]) => runCli({ args, stateDir: root });
  const key = join(work, "acme-several.pub");
  writeFileSync(key, `${FIXTURE_PUB}\n`);
  expect(rukh("trust", "add", key, "--publisher", "acme", "--namespace", "fx.*").status).toBe(0);
  const [a, b, clash] = [
    await oneCommand("fx.a", "aa"),
    await oneCommand("fx.b", "bb"),
    await oneCommand("fx.c", "aa"),
  ];
  const state = new StateDirectory(root);
  const before = (await state.history()).length;
  const refused = rukh("ext", "install", a, clash);
  expect(refused.status).toBe(4);
  expect(refused.stderr).toContain("route_conflict");
  expect((await state.history()).length).toBe(before);
  const both = rukh("ext", "install", a, b);
  expect(both.stdout).toMatch(
    /^installed fx\.a 1\.0\.0, installed fx\.b 1\.0\.0; published profile revision [0-9a-f]{12}\n$/,
  );
  expect((await state.history()).length).toBe(before + 1);
  expect(rukh("aa").stdout).toBe("aa");
  expect(rukh("bb").stdout).toBe("bb");
});
