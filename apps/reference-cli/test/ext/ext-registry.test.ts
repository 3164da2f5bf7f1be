// `ext install <npm spec>`, `ext outdated` and `ext upgrade` against a real
// private registry (Verdaccio): signed extensions published as npm packages,
// installed by name, range and dist-tag, refused exactly as their files are.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { computeManifest } from "@rukh/profile/package";
import {
  FIXTURE_PUB,
  freePort,
  registryCaEnv,
  removeDir,
  tempDir,
  writeNpmFixturePackage,
} from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { registryMissing, startRegistry, type TestRegistry } from "@rukh/testkit/registry";
import { afterAll, beforeAll, expect, it } from "vitest";

const missing = registryMissing();
if (missing !== undefined) console.log(`skipped: ${missing}`);
const work = tempDir("rukh-cli-registry-");
let registry: TestRegistry;
let refusing: ChildProcess;
let refusingUrl: string;

beforeAll(async () => {
  if (missing !== undefined) return;
  registry = await startRegistry(join(work, "verdaccio"));
  mkdirSync(project, { recursive: true });
  // A registry that wants a token for @auth and answers garbage for @junk,
  // in a process of its own: the CLI runs synchronously in this one.
  const port = await freePort();
  refusing = spawn(
    process.execPath,
    [
      "-e",
      `require("node:http").createServer((req, res) => {
        if (req.url.includes("junk")) res.writeHead(200, { "content-type": "application/json" }).end("<html>oops");
        else res.writeHead(401, { "www-authenticate": "Bearer" }).end('{"error":"unauthorized"}');
      }).listen(${port}, "127.0.0.1", () => console.log("up"));`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise((r) => refusing.stdout?.once("data", r));
  refusingUrl = `http://127.0.0.1:${port}/`;
}, 120_000);
afterAll(async () => {
  await registry?.close();
  refusing?.kill();
  removeDir(work);
});

const home = join(work, "state");
const project = join(work, "project");
function rukh(args: string[], over: Record<string, string> = {}, cwd = project) {
  return runCli({
    args,
    cwd,
    stateDir: home,
    env: {
      HOME: join(work, "home"),
      npm_config_userconfig: registry.npmrc,
      npm_config_fetch_retries: "0",
      ...registryCaEnv(),
      ...over,
    },
  });
}

function npm(args: string[], cwd: string) {
  const r = spawnSync("npm", args, { cwd, env: registry.env, encoding: "utf8", timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

interface Ext {
  readonly name: string;
  readonly id: string;
  readonly version: string;
  readonly word?: string;
  readonly signer?: { key: string; publisher: string };
  readonly publisher?: string;
}

/** A signed extension folder that is also an npm package. */
function extension(e: Ext): Promise<string> {
  mkdirSync(join(work, "src"), { recursive: true });
  return writeNpmFixturePackage({ parent: join(work, "src"), ...e });
}

async function published(e: Ext, tag?: string): Promise<string> {
  const dir = await extension(e);
  npm(["publish", ...(tag === undefined ? [] : ["--tag", tag])], dir);
  return dir;
}

const active = () => readFileSync(join(home, "active"), "utf8");
const otherKey = () =>
  generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();

it.skipIf(missing !== undefined)(
  "an npm tarball of a signed folder keeps every signed file",
  async () => {
    const dir = await extension({ name: "@jane/packed", id: "acme.packed", version: "1.0.0" });
    const [packed] = JSON.parse(npm(["pack", "--dry-run", "--json"], dir));
    const inTarball = new Set(packed.files.map((f: { path: string }) => f.path));
    const { manifest } = await computeManifest(dir);
    for (const f of manifest.files) expect(inTarball, f.path).toContain(f.path);
    expect(inTarball).toContain("rukh-signature.json");
  },
  120_000,
);

it.skipIf(missing !== undefined)(
  "installs by name, by range and by dist-tag, and lists where each came from",
  async () => {
    mkdirSync(project, { recursive: true });
    const key = join(work, "acme.pub");
    writeFileSync(key, `${FIXTURE_PUB}\n`);
    expect(rukh(["trust", "add", key, "--publisher", "acme"]).status).toBe(0);
    for (const v of ["1.0.0", "1.1.0", "2.0.0"])
      await published({ name: "@jane/hello", id: "acme.hello", version: v });
    await published({ name: "@jane/ranged", id: "acme.ranged", version: "1.2.0" });
    await published({ name: "@jane/ranged", id: "acme.ranged", version: "1.3.0" });
    await published({ name: "@jane/ranged", id: "acme.ranged", version: "2.0.0" });
    await published({ name: "@jane/tagged", id: "acme.tagged", version: "1.0.0" });
    await published({ name: "@jane/tagged", id: "acme.tagged", version: "3.0.0-beta.1" }, "next");

    const byName = rukh(["ext", "install", "@jane/hello"]);
    expect(byName.stderr).toBe("");
    expect(byName.stdout).toMatch(
      /^installed acme\.hello 2\.0\.0; published profile revision [0-9a-f]{12}\n$/,
    );
    console.log(`$ rukh ext install @jane/hello\n${byName.stdout}`);
    const byRange = rukh(["ext", "install", "@jane/ranged@^1.2"]);
    expect(byRange.stdout).toMatch(/^installed acme\.ranged 1\.3\.0;/);
    console.log(`$ rukh ext install @jane/ranged@^1.2\n${byRange.stdout}`);
    const byTag = rukh(["ext", "install", "@jane/tagged@next"]);
    expect(byTag.stdout).toMatch(/^installed acme\.tagged 3\.0\.0-beta\.1;/);
    expect(rukh(["acme-tagged"]).stdout).toBe("acme.tagged 3.0.0-beta.1");
    const list = rukh(["ext", "list"]);
    console.log(`$ rukh ext list\n${list.stdout}`);
    expect(list.stdout).toContain(`acme.ranged@1.3.0  acme  enabled`);
    expect(list.stdout).toContain(`from @jane/ranged@1.3.0 (^1.2) at ${registry.url}`);
    const json = JSON.parse(rukh(["--json", "ext", "list"]).stdout).result;
    expect(json.find((e: { id: string }) => e.id === "acme.hello").origin).toMatchObject({
      registry: registry.url,
      name: "@jane/hello",
      version: "2.0.0",
      spec: "latest",
      integrity: expect.stringMatching(/^sha512-/),
    });
    // An existing path wins over a spec of the same spelling.
    const local = await extension({ name: "@jane/local", id: "acme.local", version: "1.0.0" });
    const cwd = join(work, "paths");
    mkdirSync(join(cwd, "@jane"), { recursive: true });
    renameSync(local, join(cwd, "@jane", "hello"));
    const asPath = rukh(["ext", "install", "@jane/hello"], {}, cwd);
    expect(asPath.stdout).toMatch(/^installed acme\.local 1\.0\.0;/);
    expect(rukh(["ext", "list"]).stdout).toMatch(
      /^acme\.local@1\.0\.0 {2}acme {2}enabled {2}[0-9a-f]{12}$/m,
    );
  },
  300_000,
);

it.skipIf(missing !== undefined)(
  "refuses what a file install refuses, with the same codes, and the installed release stays",
  async () => {
    const unsigned = await extension({
      name: "@jane/unsigned",
      id: "acme.unsigned",
      version: "1.0.0",
    });
    rmSync(join(unsigned, "rukh-signature.json"));
    npm(["publish"], unsigned);
    const untrusted = await published({
      name: "@jane/untrusted",
      id: "evil.x",
      version: "1.0.0",
      publisher: "evil",
      signer: { key: otherKey(), publisher: "evil" },
    });
    const otherKeyDir = await published({
      name: "@jane/forged",
      id: "acme.forged",
      version: "1.0.0",
      signer: { key: otherKey(), publisher: "acme" },
    });
    const outside = await published({
      name: "@jane/outside",
      id: "other.outside",
      version: "1.0.0",
    });
    const changed = await extension({
      name: "@jane/changed",
      id: "acme.changed",
      version: "1.0.0",
    });
    writeFileSync(join(changed, "bin", "hi.mjs"), "process.exit(0);\n");
    npm(["publish"], changed);
    const before = active();
    const listed = rukh(["ext", "list"]).stdout;
    for (const [spec, dir, code] of [
      ["@jane/unsigned", unsigned, "unsigned"],
      ["@jane/untrusted", untrusted, "untrusted_publisher"],
      ["@jane/forged", otherKeyDir, "bad_signature"],
      ["@jane/outside", outside, "namespace_denied"],
      ["@jane/changed", changed, "digest_mismatch"],
    ] as const) {
      const fromRegistry = rukh(["ext", "install", spec]);
      const fromFile = rukh(["ext", "install", dir]);
      expect(fromRegistry.status, spec).toBe(4);
      expect(fromFile.status, spec).toBe(4);
      expect(fromRegistry.stderr.startsWith(`rukh: ${code}: `), fromRegistry.stderr).toBe(true);
      expect(fromFile.stderr.startsWith(`rukh: ${code}: `), fromFile.stderr).toBe(true);
      console.log(`$ rukh ext install ${spec}\n${fromRegistry.stderr}`);
    }
    expect(active()).toBe(before);
    expect(rukh(["ext", "list"]).stdout).toBe(listed);
  },
  300_000,
);

it.skipIf(missing !== undefined)(
  "a registry that is down, wants a token or answers garbage fails in one line naming it",
  async () => {
    const closed = `http://127.0.0.1:${await freePort()}/`;
    const down = rukh(["ext", "install", "@jane/hello"], { npm_config_registry: closed });
    expect(down.status).toBe(4);
    // One line naming it, then the line that shows the way on.
    expect(down.stderr.trim().split("\n").slice(1)).toEqual([
      "See:",
      expect.stringMatching(/^ {2}\$ rukh /),
    ]);
    expect(down.stderr).toContain(`registry_unreachable: cannot reach registry ${closed}`);
    console.log(down.stderr);
    // Scoped registries from the project's .npmrc, as npm reads them.
    const scoped = join(work, "scoped");
    mkdirSync(scoped, { recursive: true });
    writeFileSync(join(scoped, "package.json"), "{}\n");
    writeFileSync(
      join(scoped, ".npmrc"),
      `@auth:registry=${refusingUrl}\n@junk:registry=${refusingUrl}\n`,
    );
    const token = rukh(["ext", "install", "@auth/hello"], {}, scoped);
    expect(token.status).toBe(4);
    expect(token.stderr.trim().split("\n").slice(1)).toEqual([
      "See:",
      expect.stringMatching(/^ {2}\$ rukh /),
    ]);
    expect(token.stderr).toContain(`registry_auth: registry ${refusingUrl} asks for a token`);
    console.log(token.stderr);
    const junk = rukh(["ext", "install", "@junk/hello"], {}, scoped);
    expect(junk.status).toBe(4);
    expect(junk.stderr).toContain(`registry_invalid: registry ${refusingUrl} answered something`);
    console.log(junk.stderr);
  },
  120_000,
);

it.skipIf(missing !== undefined)(
  "outdated and upgrade --all over ten extensions in one publication; a latest moved back is a downgrade",
  async () => {
    const names = Array.from({ length: 10 }, (_, i) => i);
    for (const i of names)
      await published({ name: `@jane/many-${i}`, id: `acme.many${i}`, version: "1.0.0" });
    expect(rukh(["ext", "install", ...names.map((i) => `@jane/many-${i}`)]).status).toBe(0);
    for (const i of names)
      await published({ name: `@jane/many-${i}`, id: `acme.many${i}`, version: "1.1.0" });
    const outdated = rukh(["ext", "outdated"]);
    console.log(`$ rukh ext outdated\n${outdated.stdout}`);
    const rows = JSON.parse(rukh(["--json", "ext", "outdated"]).stdout).result.outdated;
    expect(rows.filter((r: { id: string }) => r.id.startsWith("acme.many"))).toHaveLength(10);
    expect(rows.find((r: { id: string }) => r.id === "acme.many3")).toEqual({
      id: "acme.many3",
      name: "@jane/many-3",
      current: "1.0.0",
      wanted: "1.1.0",
      latest: "1.1.0",
      registry: registry.url,
    });
    const before = active();
    const dry = rukh(["ext", "upgrade", "--all", "--dry-run"]);
    expect(dry.stdout).toContain("would upgrade acme.many0 1.0.0 → 1.1.0");
    expect(active()).toBe(before);
    const started = performance.now();
    const up = rukh(["ext", "upgrade", "--all"]);
    const ms = performance.now() - started;
    console.log(
      `ext upgrade --all over 10 extensions: ${ms.toFixed(0)} ms\n$ rukh ext upgrade --all\n${up.stdout}`,
    );
    expect(up.status, up.stderr).toBe(0);
    expect(up.stdout).toContain("upgraded acme.many9 1.0.0 → 1.1.0");
    const history = JSON.parse(rukh(["--json", "profile", "history"]).stdout).result;
    expect(JSON.stringify(history)).toContain(before.trim());
    expect(rukh(["acme-many7"]).stdout).toBe("acme.many7 1.1.0");
    // latest moved back to 1.0.0: following it is a downgrade.
    npm(["dist-tag", "add", "@jane/many-0@1.0.0", "latest"], work);
    const back = rukh(["ext", "upgrade", "acme.many0"]);
    console.log(`$ rukh ext upgrade acme.many0\n${back.stderr}`);
    expect(back.status).toBe(4);
    expect(back.stderr).toMatch(/^rukh: downgrade: /);
    expect(rukh(["ext", "upgrade", "acme.many0", "--allow-downgrade"]).stdout).toContain(
      "downgraded acme.many0 1.1.0 → 1.0.0",
    );
  },
  600_000,
);

it.skipIf(missing !== undefined)(
  "a password in the registry's address is never printed, listed or stored",
  async () => {
    const password = "s3cret-in-verdaccio-url";
    const { host } = new URL(registry.url);
    const withPassword = { npm_config_registry: `http://jenkins:${password}@${host}/` };
    const key = join(work, "acme.pub");
    writeFileSync(key, `${FIXTURE_PUB}\n`);
    mkdirSync(project, { recursive: true });
    rukh(["trust", "add", key, "--publisher", "acme"]);
    await published({ name: "@jane/secretive", id: "acme.secretive", version: "1.0.0" });
    const outputs: string[] = [];
    const run = (args: string[]) => {
      const r = rukh(args, withPassword);
      outputs.push(`${r.stdout}${r.stderr}`);
      return r;
    };
    const none = run(["ext", "install", "@jane/nothere"]);
    expect(none.status).toBe(4);
    expect(none.stderr).toContain(`not_found: registry ${registry.url} has no @jane/nothere`);
    const installed = run(["ext", "install", "@jane/secretive"]);
    expect(installed.status, installed.stderr).toBe(0);
    expect(run(["ext", "list"]).stdout).toContain(
      `from @jane/secretive@1.0.0 (latest) at ${registry.url}`,
    );
    const json = JSON.parse(run(["--json", "ext", "list"]).stdout).result;
    expect(json.find((e: { id: string }) => e.id === "acme.secretive").origin.registry).toBe(
      registry.url,
    );
    await published({ name: "@jane/secretive", id: "acme.secretive", version: "1.1.0" });
    expect(run(["ext", "outdated"]).stdout).toContain(
      `acme.secretive  @jane/secretive  1.0.0  1.1.0  1.1.0  ${registry.url}`,
    );
    run(["--json", "ext", "outdated"]);
    expect(run(["ext", "upgrade", "acme.secretive"]).stdout).toContain(
      "upgraded acme.secretive 1.0.0 → 1.1.0",
    );
    run(["ext", "upgrade", "acme.nothere"]);
    const files = readdirSync(home, { recursive: true, encoding: "utf8" })
      .map((p) => join(home, p))
      .filter((p) => statSync(p).isFile());
    const leaks = [
      ...outputs.filter((o) => o.includes(password)),
      ...files.filter((f) => readFileSync(f).toString("latin1").includes(password)),
    ];
    expect(leaks).toEqual([]);
  },
  300_000,
);
