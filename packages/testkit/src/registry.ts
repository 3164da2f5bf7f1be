// A private npm registry for tests: Verdaccio from the npm registry,
// installed once per machine, started on a loopback port with storage of the
// test's own. Packages of the test's scopes are published to it; every other
// package is proxied from the registry the machine's npm configuration names
// (read at run time, so no registry address is written into the project).

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registryCaEnv } from "./_ca.js";
import { freePort } from "./_net.js";

/** The Verdaccio release the tests run. */
export const VERDACCIO_VERSION = "6.8.0";

const INSTALL_DIR = join(tmpdir(), `rukh-verdaccio-${VERDACCIO_VERSION}`);
const BIN = join(INSTALL_DIR, "node_modules", "verdaccio", "bin", "verdaccio");

/** The registry the machine's npm configuration names (Verdaccio's uplink). */
export function upstreamRegistry(): string {
  const r = spawnSync("npm", ["config", "get", "registry"], { encoding: "utf8" });
  const url = r.stdout.trim();
  if (r.status !== 0 || !/^https?:\/\//.test(url))
    throw new Error(`npm config get registry answered ${JSON.stringify(url || r.stderr)}`);
  return url;
}

/**
 * Installs Verdaccio (once per machine): `undefined` when it is ready, else
 * why it cannot be had (under `CI` it throws instead: a suite that needs it
 * fails rather than skips).
 */
export function registryMissing(): string | undefined {
  if (existsSync(BIN)) return undefined;
  mkdirSync(INSTALL_DIR, { recursive: true });
  const r = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      INSTALL_DIR,
      "--no-audit",
      "--no-fund",
      "--no-save",
      `verdaccio@${VERDACCIO_VERSION}`,
    ],
    { encoding: "utf8", timeout: 600_000, env: { ...process.env, ...registryCaEnv() } },
  );
  if (r.status !== 0 || !existsSync(BIN)) {
    const why = `cannot install verdaccio@${VERDACCIO_VERSION}: ${(r.stderr || String(r.error)).slice(-300)}`;
    // Under CI a registry suite that cannot run fails instead of skipping.
    if (process.env.CI) throw new Error(why);
    return why;
  }
  return undefined;
}

/** A running registry. */
export interface TestRegistry {
  /** Its address, ending in `/`. */
  readonly url: string;
  /**
   * An npm user configuration that publishes to and installs from it (any
   * token publishes: the registry lets anyone publish the test's scopes).
   */
  readonly npmrc: string;
  /** Environment for an npm child: this registry, this configuration, no other. */
  readonly env: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

/** Options of {@link startRegistry}. */
export interface RegistryOptions {
  /** Package name patterns anyone may publish (default: `@rukh/*`, `create-rukh-cli`, `@jane/*`). */
  readonly publishable?: readonly string[];
}

/**
 * Starts Verdaccio in `dir` (its storage, configuration and log live there).
 * Call {@link registryMissing} first.
 */
export async function startRegistry(
  dir: string,
  options: RegistryOptions = {},
): Promise<TestRegistry> {
  mkdirSync(join(dir, "storage"), { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const scopes = options.publishable ?? ["@rukh/*", "create-rukh-cli", "@jane/*"];
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${join(dir, "storage")}`,
      "auth:",
      "  htpasswd:",
      `    file: ${join(dir, "htpasswd")}`,
      "uplinks:",
      "  upstream:",
      `    url: ${upstreamRegistry()}`,
      "    timeout: 60s",
      "packages:",
      ...scopes.flatMap((s) => [`  '${s}':`, "    access: $all", "    publish: $all"]),
      "  '**':",
      "    access: $all",
      "    proxy: upstream",
      "log: { type: stdout, format: json, level: warn }",
      "",
    ].join("\n"),
  );
  const npmrc = join(dir, "npmrc");
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=test-token\n`);
  const child = spawn(
    process.execPath,
    [BIN, "--config", config, "--listen", `127.0.0.1:${port}`],
    {
      stdio: ["ignore", "pipe", "pipe"],
      // The uplink is the npm registry, reached through Node's own TLS.
      env: { ...process.env, ...registryCaEnv() },
    },
  );
  let log = "";
  child.stdout?.on("data", (d: Buffer) => {
    log = (log + d.toString()).slice(-4000);
  });
  child.stderr?.on("data", (d: Buffer) => {
    log = (log + d.toString()).slice(-4000);
  });
  await waitUntilUp(url, child, () => log);
  const { PATH, HOME } = process.env;
  return {
    url,
    npmrc,
    env: {
      PATH: PATH ?? "/usr/bin:/bin",
      HOME: HOME ?? dir,
      ...registryCaEnv(),
      npm_config_userconfig: npmrc,
      npm_config_registry: url,
      npm_config_cache: join(dir, "npm-cache"),
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false",
    },
    close: () => stop(child),
  };
}

async function waitUntilUp(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`verdaccio exited with ${child.exitCode}: ${log()}`);
    try {
      const r = await fetch(`${url}-/ping`);
      if (r.ok) return;
    } catch {}
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`verdaccio did not answer at ${url} within 30 s: ${log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
  });
}
