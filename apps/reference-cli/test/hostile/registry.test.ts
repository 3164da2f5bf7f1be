// `ext install`, `ext outdated` and `ext upgrade` against a registry that
// lies on purpose (issue 43): its owner's credentials never leave the
// places they are configured for, no download runs forever, an integrity
// that checks nothing is refused, and no dist-tag reaches a table unchecked.
import type { SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { canonicalJson, type JsonValue, sha256Hex } from "@rukh/json";
import { FIXTURE_PUB, removeDir, tempDir, writeNpmFixturePackage } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import {
  type HostileRegistry,
  type HostileVersion,
  packTarball,
  startHostileRegistry,
} from "@rukh/testkit/hostile-registry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const work = tempDir("rukh-hostile-registry-");
const home = join(work, "state");
const npmrc = join(work, "user.npmrc");
/** The password in the registry's address and the token for it: neither may ever show. */
const PASSWORD = "pa55-in-the-url-7f3a";
const TOKEN = "t0ken-for-the-registry-9c1e";
const SECRETS = [PASSWORD, TOKEN];
let evil: HostileRegistry;
let plain: string;
const seen: string[] = [];

beforeAll(async () => {
  evil = await startHostileRegistry({ trickleMs: 1_500 });
  const { host } = new URL(evil.url);
  plain = evil.url;
  writeFileSync(
    npmrc,
    `registry=http://owner:${PASSWORD}@${host}/\n//${host}/:_authToken=${TOKEN}\n`,
  );
  writeFileSync(join(work, "acme.pub"), `${FIXTURE_PUB}\n`);
  expect(rukh(["trust", "add", join(work, "acme.pub"), "--publisher", "acme"]).status).toBe(0);
}, 60_000);
afterAll(async () => {
  await evil?.close();
  removeDir(work);
});

/** The CLI against the hostile registry; every stream it writes is kept for the secret scan. */
function rukh(args: string[], over: Record<string, string> = {}): SpawnSyncReturns<string> {
  const r = runCli({
    args,
    cwd: work,
    // A download that never ends fails the test instead of hanging it.
    timeout: 30_000,
    killSignal: "SIGKILL",
    stateDir: home,
    env: {
      HOME: join(work, "home"),
      npm_config_userconfig: npmrc,
      npm_config_fetch_retries: "0",
      ...over,
    },
  });
  seen.push(`$ rukh ${args.join(" ")}\n${r.stdout}${r.stderr}`);
  return r;
}

const tarballs = new Map<string, Buffer>();
/** The npm tarball of a signed extension `id` at `version`, published as `name`. */
async function tarball(name: string, id: string, version: string): Promise<Buffer> {
  const key = `${name}@${version}`;
  const known = tarballs.get(key);
  if (known !== undefined) return known;
  mkdirSync(join(work, "src"), { recursive: true });
  const dir = await writeNpmFixturePackage({ parent: join(work, "src"), name, id, version });
  const bytes = packTarball(dir);
  tarballs.set(key, bytes);
  return bytes;
}

/** Serves `name` (extension `id`) at `versions`, each with what `over` says of it. */
async function serve(
  name: string,
  id: string,
  versions: Record<string, Omit<HostileVersion, "tarball">>,
  more: { distTags?: Record<string, string>; trickle?: boolean } = {},
): Promise<void> {
  const offered: Record<string, HostileVersion> = {};
  for (const [v, over] of Object.entries(versions))
    offered[v] = { tarball: await tarball(name, id, v), ...over };
  await evil.serve({ name, versions: offered, ...more });
}

/** Every file under `dir`, as bytes. */
function everyFile(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile())
    .map((path) => ({ path, bytes: readFileSync(path) }));
}

function activeRevision(root = home): { id: string; revision: Record<string, JsonValue> } {
  const id = readFileSync(join(root, "active"), "utf8").trim();
  return { id, revision: JSON.parse(readFileSync(join(root, "revisions", `${id}.json`), "utf8")) };
}

describe("credentials in the registry's address", () => {
  it("never reach an output stream or a file of the state directory", async () => {
    const missing = rukh(["ext", "install", "@evil/none"]);
    expect(missing.status, missing.stderr).toBe(4);
    expect(missing.stderr).toContain(`not_found: registry ${plain} has no @evil/none`);
    await serve("@evil/hello", "acme.hello", { "1.0.0": {} });
    const installed = rukh(["ext", "install", "@evil/hello"]);
    expect(installed.status, installed.stderr).toBe(0);
    const { revision } = activeRevision();
    expect(JSON.stringify(revision)).toContain(`"registry":"${plain}"`);
    await serve("@evil/hello", "acme.hello", { "1.0.0": {}, "1.1.0": {} });
    expect(rukh(["ext", "list"]).stdout).toContain(`at ${plain}`);
    const listed = JSON.parse(rukh(["--json", "ext", "list"]).stdout).result;
    expect(listed[0].origin.registry).toBe(plain);
    expect(rukh(["ext", "outdated"]).stdout).toContain(`1.0.0  1.1.0  1.1.0  ${plain}`);
    rukh(["--json", "ext", "outdated"]);
    rukh(["ext", "upgrade", "--all", "--dry-run"]);
    expect(rukh(["ext", "upgrade", "--all"]).status).toBe(0);
    // Failures name the registry too.
    await serve("@evil/hello", "acme.hello", {
      "1.0.0": {},
      "1.1.0": {},
      "1.2.0": { integrity: `sha512-${Buffer.alloc(64).toString("base64")}` },
    });
    expect(rukh(["ext", "upgrade", "--all"]).stderr).toContain("integrity_mismatch");
    expect(rukh(["--json", "ext", "upgrade", "--all"]).status).toBe(4);
    expect(rukh(["ext", "install", "@evil/none"], { npm_config_fetch_timeout: "1" }).status).toBe(
      4,
    );
    await serve("@evil/hello", "acme.hello", { "1.0.0": {}, "1.1.0": {} });
  }, 120_000);

  it("an old revision's registry address is read without them", async () => {
    // A copy of the state directory whose active revision was written
    // before addresses were cleaned: the same revision with the password in
    // its origin, under the id of its text.
    const old = join(work, "old-state");
    cpSync(home, old, { recursive: true });
    const { id, revision } = activeRevision(old);
    const exts = revision.extensions as { origin: { registry: string } }[];
    exts[0]!.origin.registry = `http://owner:${PASSWORD}@${new URL(plain).host}/`;
    const text = canonicalJson(revision as JsonValue);
    const oldId = sha256Hex(text);
    writeFileSync(join(old, "revisions", `${oldId}.json`), text);
    for (const part of ["routes", "catalog"])
      copyFileSync(
        join(old, "revisions", `${id}.${part}.json`),
        join(old, "revisions", `${oldId}.${part}.json`),
      );
    writeFileSync(join(old, "active"), `${oldId}\n`);
    const at = { RUKH_HOME: old };
    const list = rukh(["ext", "list"], at);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain(`at ${plain}`);
    const json = JSON.parse(rukh(["--json", "ext", "list"], at).stdout).result;
    expect(json[0].origin.registry).toBe(plain);
    expect(rukh(["--json", "profile", "history"], at).status).toBe(0);
    // The same package and spec again publishes nothing: the old revision stays active.
    expect(rukh(["ext", "install", "@evil/hello"], at).stdout).toContain(
      "already installed (the same packages); nothing published",
    );
    expect(readFileSync(join(old, "active"), "utf8")).toBe(`${oldId}\n`);
    for (const out of seen.slice(-4)) expect(out).not.toContain(PASSWORD);
    removeDir(old);
  });
});

/** Runs `args` and says how long it took, in milliseconds. */
function timed(args: string[], over: Record<string, string>): [SpawnSyncReturns<string>, number] {
  const started = performance.now();
  const r = rukh(args, over);
  return [r, performance.now() - started];
}

describe("a registry that sends one byte every 1.5 s", () => {
  it("ends install, outdated and upgrade at the total deadline: fetch-timeout", async () => {
    await serve("@evil/slowdoc", "acme.slowdoc", { "1.0.0": {} }, { trickle: true });
    await serve("@evil/slowtar", "acme.slowtar", { "1.0.0": { serve: "trickle" } });
    const five = { npm_config_fetch_timeout: "5000" };
    for (const [spec, what] of [
      ["@evil/slowdoc", "the package document of @evil/slowdoc"],
      ["@evil/slowtar", "the tarball of @evil/slowtar@1.0.0"],
    ] as const) {
      const [r, ms] = timed(["ext", "install", spec], five);
      expect(r.status, r.stderr).toBe(4);
      expect(r.stderr).toContain(
        `registry_unreachable: registry ${plain} did not send all of ${what} within 5 s (the total deadline: npm's fetch-timeout, at most 600 s)`,
      );
      expect(ms).toBeGreaterThan(4_500);
      expect(ms).toBeLessThan(20_000);
    }
    // Installed while the registry behaved; then it starts to trickle.
    await serve("@evil/later", "acme.later", { "1.0.0": {} });
    expect(rukh(["ext", "install", "@evil/later"]).status).toBe(0);
    await serve("@evil/later", "acme.later", { "1.0.0": {} }, { trickle: true });
    for (const args of [
      ["ext", "outdated"],
      ["ext", "upgrade", "--all"],
    ]) {
      const [r, ms] = timed(args, five);
      expect(r.status, r.stderr).toBe(4);
      expect(r.stderr).toContain(
        `registry ${plain} did not send all of the package document of @evil/later within 5 s`,
      );
      expect(ms).toBeLessThan(20_000);
    }
    await serve("@evil/later", "acme.later", { "1.0.0": {}, "1.1.0": { serve: "trickle" } });
    const [up, ms] = timed(["ext", "upgrade", "--all"], five);
    expect(up.stderr).toContain(`did not send all of the tarball of @evil/later@1.1.0 within 5 s`);
    expect(ms).toBeLessThan(20_000);
    await serve("@evil/later", "acme.later", { "1.0.0": {} });
  }, 120_000);
});

describe("credentials on a redirect", () => {
  it("go only where scheme, host and port are the registry's", async () => {
    await serve("@evil/moved", "acme.moved", { "1.0.0": { serve: "redirect" } });
    await serve("@evil/elsewhere", "acme.elsewhere", { "1.0.0": { serve: "second-port" } });
    await evil.requests();
    for (const spec of ["@evil/moved", "@evil/elsewhere"]) {
      const r = rukh(["ext", "install", spec]);
      expect(r.status, r.stderr).toBe(0);
    }
    const requests = await evil.requests();
    const at = (port: string) => requests.filter((q) => q.port === port);
    expect(at("second").map((q) => q.url)).toEqual([
      "/%40evil%2Fmoved/-/1.0.0.tgz",
      "/%40evil%2Felsewhere/-/1.0.0.tgz",
    ]);
    for (const q of at("second")) {
      expect(q.headers.authorization, q.url).toBeUndefined();
      expect(q.headers.cookie, q.url).toBeUndefined();
    }
    // The registry's own port still gets its token.
    for (const q of at("registry")) expect(q.headers.authorization, q.url).toBe(`Bearer ${TOKEN}`);
    expect(at("registry").map((q) => q.url)).toContain("/%40evil%2Fmoved/-/1.0.0.tgz");
  }, 60_000);
});

describe("an integrity that checks nothing", () => {
  const sha1 = (t: Buffer) => createHash("sha1").update(t).digest("hex");
  it.each([
    ["an empty sha512", "empty", () => ({ integrity: "sha512-" })],
    ["a digest of the wrong length", "short", () => ({ integrity: `sha512-${"A".repeat(43)}=` })],
    ["md5", "md", () => ({ integrity: `md5-${Buffer.alloc(16).toString("base64")}` })],
    ["garbage", "garbage", () => ({ integrity: "not an integrity" })],
    // The tarball's true SHA-1: right, and still not enough.
    ["only a SHA-1 shasum", "sha", (t: Buffer) => ({ integrity: null, shasum: sha1(t) })],
  ] as const)("%s is registry_invalid, and nothing is installed", async (_what, word, dist) => {
    const name = `@evil/integrity-${word}`;
    await serve(name, `acme.${word}`, {
      "1.0.0": dist(await tarball(name, `acme.${word}`, "1.0.0")),
    });
    const before = readFileSync(join(home, "active"), "utf8");
    const r = rukh(["ext", "install", name]);
    expect(r.status, r.stderr).toBe(4);
    expect(r.stderr).toMatch(
      new RegExp(
        `^rukh: registry_invalid: registry ${plain} lists ${name}@1\\.0\\.0 with .*; expected a sha256, sha384 or sha512 integrity`,
      ),
    );
    expect(readFileSync(join(home, "active"), "utf8")).toBe(before);
  });
});

describe("a dist-tag that is not one of the versions", () => {
  const row = "acme.forged  @evil/forged  0.0.1  9.9.9  9.9.9  http://evil.example/";
  it.each([
    ["a line break and a forged row", `1.0.1\n${row}`],
    ["a carriage return", "1.0.1\r"],
    ["a line separator", "1.0.1\u2028x"],
    ["a version it does not list", "9.9.9"],
    ["a range", "^1.0.0"],
  ])("%s in latest is registry_invalid in outdated, and no row is forged", async (_what, tag) => {
    await serve("@evil/tags", "acme.tags", { "1.0.0": {} });
    // Installed by range: its wanted version is read from the range, its latest from the tag.
    if (!rukh(["ext", "list"]).stdout.includes("acme.tags@"))
      expect(rukh(["ext", "install", "@evil/tags@^1.0.0"]).status).toBe(0);
    await serve(
      "@evil/tags",
      "acme.tags",
      { "1.0.0": {}, "1.0.1": {} },
      { distTags: { latest: tag } },
    );
    const r = rukh(["ext", "outdated"]);
    expect(r.status, r.stdout).toBe(4);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `rukh: registry_invalid: registry ${plain} names as the latest version of @evil/tags ${JSON.stringify(tag)}, which is not one of its versions`,
    );
    expect(r.stderr.split("\n")).toHaveLength(4);
    for (const spec of ["@evil/tags", "@evil/tags@latest"]) {
      const install = rukh(["ext", "install", spec]);
      expect(install.status).toBe(4);
      expect(install.stderr).toContain("registry_invalid");
    }
  });
});

// Last, over everything this file ran: installs, lists, outdated, upgrades
// and each failure, and every file the state directory holds after them.
describe("after every attack", () => {
  it("no credential is in any output stream or any file of the state directory", () => {
    expect(seen.length).toBeGreaterThan(40);
    const leaks = [
      ...seen.map((text, i) => ({ where: `output ${i}`, text })),
      ...everyFile(home).map(({ path, bytes }) => ({
        where: path,
        text: bytes.toString("latin1"),
      })),
    ].filter(({ text }) => SECRETS.some((s) => text.includes(s)));
    expect(leaks).toEqual([]);
  });
});
