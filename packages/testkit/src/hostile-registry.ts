// An npm registry that lies on purpose, for the attacks a registry can make:
// package documents with chosen dist-tags and integrity, tarballs served at
// once, one byte at a time, through a redirect to a second port or from
// that port, and every request's headers recorded per port. Real HTTP on
// 127.0.0.1, in a process of its own: a test may run the CLI synchronously.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The path under which the server takes its instructions (never served, never recorded). */
export const CONTROL = "/-/hostile/";

/** One version a {@link HostileRegistry} offers. */
export interface HostileVersion {
  /** The npm tarball (see {@link packTarball}). */
  readonly tarball: Uint8Array;
  /** `dist.integrity` as published: by default the tarball's own SHA-512; `null` publishes none. */
  readonly integrity?: string | null;
  /** `dist.shasum` as published (by default none). */
  readonly shasum?: string;
  /**
   * How the tarball is served: at once (`plain`, the default), its headers
   * then one byte every `trickleMs` without end (`trickle`), as a 302 to the
   * same path on the second port (`redirect`), with a tarball URL on the
   * second port (`second-port`), or as a 302 to itself without end (`loop`).
   */
  readonly serve?: "plain" | "trickle" | "redirect" | "second-port" | "loop";
}

/** One package a {@link HostileRegistry} offers. */
export interface HostilePackage {
  readonly name: string;
  /** Its versions, in the order the default `latest` (the last) follows. */
  readonly versions: Readonly<Record<string, HostileVersion>>;
  /** The dist-tags as published, any text at all (default: `latest` is the last version). */
  readonly distTags?: Readonly<Record<string, string>>;
  /** The package document's headers, then one byte every `trickleMs` without end. */
  readonly trickle?: boolean;
}

/** A {@link HostilePackage} as it travels to the server: each tarball in base64. */
export interface ServedPackage extends Omit<HostilePackage, "versions"> {
  readonly versions: Readonly<
    Record<string, Omit<HostileVersion, "tarball"> & { readonly tarball: string }>
  >;
}

/** One request the server received (control requests aside). */
export interface HostileRequest {
  /** Which port: the registry's own, or the second one. */
  readonly port: "registry" | "second";
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A running hostile registry. */
export interface HostileRegistry {
  /** The registry's address, ending in `/`. */
  readonly url: string;
  /** The second port's address on the same host, ending in `/`. */
  readonly secondUrl: string;
  /** Serves `pkg` from now on (replacing what was served under its name). */
  serve(pkg: HostilePackage): Promise<void>;
  /** The requests received since the last call, oldest first. */
  requests(): Promise<HostileRequest[]>;
  close(): Promise<void>;
}

/** Options of {@link startHostileRegistry}. */
export interface HostileOptions {
  /** Milliseconds between the bytes of a trickled body (default 1 500). */
  readonly trickleMs?: number;
}

/**
 * Starts a hostile registry on two loopback ports, in a child process.
 *
 * @example
 * const evil = await startHostileRegistry();
 * await evil.serve({ name: "@evil/x", versions: { "1.0.0": { tarball, integrity: "sha512-" } } });
 */
export async function startHostileRegistry(options: HostileOptions = {}): Promise<HostileRegistry> {
  const program = fileURLToPath(new URL("./_hostile-server.js", import.meta.url));
  const child: ChildProcess = spawn(
    process.execPath,
    [program, String(options.trickleMs ?? 1_500)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    child.once("exit", (code) => reject(new Error(`the hostile registry exited with ${code}`)));
  });
  const { registry: url, second: secondUrl } = JSON.parse(line) as Record<string, string>;
  const ask = (path: string, init?: RequestInit) => fetch(`${url}${CONTROL.slice(1)}${path}`, init);
  return {
    url: url!,
    secondUrl: secondUrl!,
    async serve(pkg) {
      const served: ServedPackage = {
        ...pkg,
        versions: Object.fromEntries(
          Object.entries(pkg.versions).map(([v, x]) => [
            v,
            { ...x, tarball: Buffer.from(x.tarball).toString("base64") },
          ]),
        ),
      };
      const r = await ask("package", { method: "PUT", body: JSON.stringify(served) });
      if (r.status !== 204) throw new Error(`the hostile registry answered ${r.status}`);
    },
    async requests() {
      return (await (await ask("requests")).json()) as HostileRequest[];
    },
    close() {
      if (child.exitCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      });
    },
  };
}

/**
 * The npm tarball `npm pack` makes of the package folder `dir` (which has a
 * package.json): what a registry would serve of it.
 *
 * @example
 * const tarball = packTarball(await writeFixturePackage({ parent, descriptor, programs }));
 */
export function packTarball(dir: string): Buffer {
  const out = mkdtempSync(join(tmpdir(), "rukh-pack-"));
  try {
    const r = spawnSync("npm", ["pack", "--json", "--pack-destination", out], {
      cwd: dir,
      encoding: "utf8",
      timeout: 120_000,
    });
    if (r.status !== 0) throw new Error(`npm pack in ${dir} failed: ${r.stderr}`);
    const [packed] = JSON.parse(r.stdout) as { filename: string }[];
    return readFileSync(join(out, packed!.filename));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
