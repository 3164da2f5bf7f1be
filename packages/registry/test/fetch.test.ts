// One registry GET against a registry that lies on purpose: it ends at its
// idle timeout or its total deadline, credentials go only to the registry's
// own scheme, host and port on every hop, and no message carries one.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, removeDir, tempDir } from "@rukh/testkit";
import { type HostileRegistry, startHostileRegistry } from "@rukh/testkit/hostile-registry";
import regFetch from "npm-registry-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchDeadlines } from "../src/_deadline.js";
import { boundedGet } from "../src/_fetch.js";
import { hopOptions } from "../src/_hops.js";
import { type NpmOptions, npmConfig, RegistryError, registryOf } from "../src/index.js";

const work = tempDir("rukh-registry-fetch-");
const TOKEN = "t0ken-of-the-registry";
const PASSWORD = "pa55word-in-the-url";
const tarball = Buffer.from("the bytes of a tarball");
let evil: HostileRegistry;

beforeAll(async () => {
  evil = await startHostileRegistry({ trickleMs: 400 });
  await evil.serve({
    name: "@evil/x",
    versions: {
      "1.0.0": { tarball, serve: "redirect" },
      "1.0.1": { tarball, serve: "second-port" },
      "1.0.2": { tarball, serve: "trickle" },
      "1.0.3": { tarball, serve: "loop" },
    },
  });
});
afterAll(async () => {
  await evil?.close();
  removeDir(work);
});

/** npm's configuration with `npmrc` as the user's, and nothing else of the machine's. */
function npmWith(npmrc: string, env: Record<string, string> = {}): Promise<NpmOptions> {
  const file = join(work, `npmrc-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, npmrc);
  return npmConfig({
    cwd: work,
    env: { HOME: work, npm_config_userconfig: file, npm_config_fetch_retries: "0", ...env },
  });
}

const get = (version: string, base = evil.url) => ({
  url: `${base}%40evil%2Fx/-/${version}.tgz`,
  name: "@evil/x",
  what: `the tarball of @evil/x@${version}`,
  maxBytes: 1_000_000,
  tooLarge: "too large",
});

async function failed(p: Promise<unknown>): Promise<RegistryError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(RegistryError);
  return e as RegistryError;
}

describe("deadlines", () => {
  it.each([
    ["", { totalMs: 300_000, idleMs: 30_000 }],
    ["5000", { totalMs: 5_000, idleMs: 5_000 }],
    ["60000", { totalMs: 60_000, idleMs: 30_000 }],
    ["3600000", { totalMs: 600_000, idleMs: 30_000 }],
    ["0", { totalMs: 600_000, idleMs: 30_000 }],
  ])("fetch-timeout %j gives %j", async (timeout, limits) => {
    const npm = await npmWith("", timeout === "" ? {} : { npm_config_fetch_timeout: timeout });
    expect(fetchDeadlines(npm)).toEqual(limits);
  });

  it("a body that stops for longer than the idle timeout ends there", async () => {
    const npm = await npmWith(`registry=${evil.url}\n`);
    const started = performance.now();
    const e = await failed(
      boundedGet(npm, { ...get("1.0.2"), deadlines: { totalMs: 10_000, idleMs: 200 } }),
    );
    expect(performance.now() - started).toBeLessThan(3_000);
    expect([e.code, e.message]).toEqual([
      "registry_unreachable",
      `registry ${evil.url} sent nothing of the tarball of @evil/x@1.0.2 for 0.2 s (the idle timeout: npm's fetch-timeout, at most 30 s)`,
    ]);
  });

  it("a body that trickles on ends at the total deadline", async () => {
    const npm = await npmWith(`registry=${evil.url}\n`);
    const started = performance.now();
    const e = await failed(
      boundedGet(npm, { ...get("1.0.2"), deadlines: { totalMs: 1_500, idleMs: 1_000 } }),
    );
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(e.message).toBe(
      `registry ${evil.url} did not send all of the tarball of @evil/x@1.0.2 within 1.5 s (the total deadline: npm's fetch-timeout, at most 600 s)`,
    );
  });

  it("npm's retries do not outlast the deadline", async () => {
    const npm = await npmWith(`registry=${evil.url}\n`, { npm_config_fetch_retries: "3" });
    const started = performance.now();
    await failed(
      boundedGet(npm, { ...get("1.0.2"), deadlines: { totalMs: 1_000, idleMs: 1_000 } }),
    );
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it("a registry that refuses every connection while npm retries is named by that refusal", async () => {
    const closed = `http://127.0.0.1:${await freePort()}/`;
    const npm = await npmWith(`registry=${closed}\n`, { npm_config_fetch_retries: "3" });
    const e = await failed(
      boundedGet(npm, { ...get("1.0.2", closed), deadlines: { totalMs: 1_500, idleMs: 1_000 } }),
    );
    expect(e.code).toBe("registry_unreachable");
    expect(e.message).toBe(
      `cannot reach registry ${closed} for the tarball of @evil/x@1.0.2 (ECONNREFUSED); gave up retrying after 1 s`,
    );
  });
});

describe("credentials on every hop", () => {
  const host = () => new URL(evil.url).host;
  it.each([
    ["a token", () => `//${host()}/:_authToken=${TOKEN}\n`, `Bearer ${TOKEN}`],
    [
      "basic auth",
      () =>
        `//${host()}/:username=jane\n//${host()}/:_password=${Buffer.from(PASSWORD).toString("base64")}\n`,
      `Basic ${Buffer.from(`jane:${PASSWORD}`).toString("base64")}`,
    ],
  ])("%s goes to the registry's port and never to another", async (_what, npmrc, header) => {
    const npm = await npmWith(`registry=${evil.url}\n${npmrc()}`);
    await evil.requests();
    // Redirected to the second port, and published there.
    expect(await boundedGet(npm, get("1.0.0"))).toEqual(tarball);
    expect(await boundedGet(npm, get("1.0.1", evil.secondUrl))).toEqual(tarball);
    const requests = await evil.requests();
    expect(requests.map((r) => [r.port, r.headers.authorization])).toEqual([
      ["registry", header],
      ["second", undefined],
      ["second", undefined],
    ]);
  });

  it("user info in the registry's address goes to its port and never to another", async () => {
    const npm = await npmWith(`registry=http://jane:${PASSWORD}@${host()}/\n`);
    await evil.requests();
    const withUser = {
      ...get("1.0.0"),
      url: `http://jane:${PASSWORD}@${host()}/%40evil%2Fx/-/1.0.0.tgz`,
    };
    expect(await boundedGet(npm, withUser)).toEqual(tarball);
    const requests = await evil.requests();
    expect(requests.map((r) => [r.port, r.headers.authorization])).toEqual([
      ["registry", `Basic ${Buffer.from(`jane:${PASSWORD}`).toString("base64")}`],
      ["second", undefined],
    ]);
  });
});

it("a redirect loop ends after 10 redirects", async () => {
  const npm = await npmWith(`registry=${evil.url}\n`);
  await evil.requests();
  const e = await failed(boundedGet(npm, get("1.0.3")));
  expect([e.code, e.message]).toEqual([
    "registry_invalid",
    `registry ${evil.url} redirected the tarball of @evil/x@1.0.3 more than 10 times`,
  ]);
  expect(await evil.requests()).toHaveLength(11);
});

describe("messages", () => {
  it("name the registry without its user info, and carry no credential", async () => {
    const npm = await npmWith(
      `registry=http://jane:${PASSWORD}@${new URL(evil.url).host}/\n//${new URL(evil.url).host}/:_authToken=${TOKEN}\n`,
    );
    expect(registryOf("@evil/none", npm)).toBe(evil.url);
    const e = await failed(boundedGet(npm, { ...get("9.9.9"), name: "@evil/none" }));
    expect(e.message).toBe(`registry ${evil.url} has no @evil/none`);
    const closed = await npmWith(`registry=http://jane:${PASSWORD}@127.0.0.1:9/\n`);
    const down = await failed(
      boundedGet(closed, { ...get("1.0.0"), url: `http://jane:${PASSWORD}@127.0.0.1:9/x.tgz` }),
    );
    expect(down.code).toBe("registry_unreachable");
    for (const text of [e.message, down.message, String(down.cause), String(e.cause)])
      expect(text).not.toMatch(new RegExp(`${PASSWORD}|${TOKEN}`));
  });
});

describe("a hop's options", () => {
  it("away from the registry's scheme, host and port carry no credential npm would send", async () => {
    const cert = join(work, "client.pem");
    writeFileSync(cert, "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n");
    const host = new URL(evil.url).host;
    const npm = await npmWith(
      [
        `registry=${evil.url}`,
        `//${host}/:_authToken=${TOKEN}`,
        `//${host}/:certfile=${cert}`,
        `//${host}/:keyfile=${cert}`,
        `cert=${JSON.stringify("-----BEGIN CERTIFICATE-----")}`,
        `key=${JSON.stringify("-----BEGIN PRIVATE KEY-----")}`,
        "",
      ].join("\n"),
    );
    const hop = (url: string) => {
      const opts = hopOptions(npm, url, { name: "@evil/x", registry: evil.url });
      const auth = regFetch.getAuth(url, opts);
      return [
        Boolean(auth.token || auth.auth),
        Boolean(auth.cert || opts.cert),
        Boolean(auth.key || opts.key),
      ];
    };
    expect(hop(`${evil.url}x.tgz`)).toEqual([true, true, true]);
    const { port } = new URL(evil.secondUrl);
    for (const away of [
      `${evil.secondUrl}x.tgz`,
      `https://${host}/x.tgz`,
      `http://localhost:${new URL(evil.url).port}/x.tgz`,
      `http://127.0.0.1:${port}/x.tgz`,
    ])
      expect(hop(away), away).toEqual([false, false, false]);
  });
});
