// The complete surface of @rukh/testkit: test support shared by the workspace's suites.

import type { KeyObject } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { spawnCommandProcess } from "@rukh/ipc";
import { StateDirectory, signPackage } from "@rukh/profile";

export { registryCaEnv } from "./_ca.js";
export { FORGED_TEXT, forgedLines, hostileEnumInput } from "./_forged.js";
export type { LineRpc } from "./_rpc.js";
export { lineRpc } from "./_rpc.js";

/**
 * The fixture publisher's private key (`fixtures/keys/example-publisher.key`).
 *
 * @example
 * await signPackage(dir, FIXTURE_KEY, { publisher: FIXTURE_PUBLISHER });
 */
export const FIXTURE_KEY: string = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.key", import.meta.url),
  "utf8",
);

/**
 * The fixture publisher's public key (`fixtures/keys/example-publisher.pub`), trimmed.
 *
 * @example
 * const trusted = [{ id: FIXTURE_PUBLISHER, publicKey: FIXTURE_PUB }];
 */
export const FIXTURE_PUB: string = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.pub", import.meta.url),
  "utf8",
).trim();

/**
 * The publisher id that fixture packages are signed as and fixture owner configs trust.
 *
 * @example
 * const descriptor = { format: "rukh.extension/2", id: "fx.main", publisher: FIXTURE_PUBLISHER };
 */
export const FIXTURE_PUBLISHER = "acme";

/**
 * A fresh temporary directory, realpath'd so paths compare equal to what the code under test sees.
 *
 * @example
 * const work = tempDir("rukh-core-");
 */
export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/**
 * Removes a directory tree, ignoring one that is already gone.
 *
 * @example
 * afterEach(() => removeDir(work));
 */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The file URL of the bundled `@rukh/ipc` child runtime (one module, what packages vendor),
 * which fixture programs import in place of the bare specifier (a package directory has no
 * `node_modules` to resolve it from).
 *
 * @example
 * await import(ipcRuntimeUrl());
 */
export function ipcRuntimeUrl(): string {
  return pathToFileURL(realpathSync(createRequire(import.meta.url).resolve("@rukh/ipc/runtime")))
    .href;
}

/**
 * A string input of a fixture descriptor: at most 256 characters unless `extra` says otherwise.
 *
 * @example
 * str("name", { required: true, positional: 0 });
 */
export function str(id: string, extra: object = {}): object {
  return { id, type: "string", maxLength: 256, summary: `The ${id}`, ...extra };
}

/**
 * An integer input of a fixture descriptor: 0 to 120 000 unless `extra` says otherwise.
 *
 * @example
 * int("wait_ms", { default: 0 });
 */
export function int(id: string, extra: object = {}): object {
  return { id, type: "integer", minimum: 0, maximum: 120_000, summary: `The ${id}`, ...extra };
}

/**
 * A managed execute block running the fixture program `program` (default `bin/commands.mjs`).
 *
 * @example
 * managed({ kind: "text" }, "bin/native", "native");
 */
export function managed(
  result: object = { kind: "text" },
  program = "bin/commands.mjs",
  runtime: "node" | "native" = "node",
): object {
  return { mapping: "managed", program, runtime, result };
}

/**
 * The machine block of a fixture command that agents may call.
 *
 * @example
 * machine("required");
 */
export function machine(interaction: "none" | "optional" | "required" = "none"): object {
  return { eligible: true, interaction, requiredFeatures: ["rukh.command-result/1"] };
}

/** One command of a descriptor built by {@link commandsDescriptor}. */
export interface FixtureCommand {
  /** Command id; its path is the id with `_` spelled `-`. */
  readonly id: string;
  /** Descriptor inputs (default none). */
  readonly inputs?: readonly object[];
  /** Result contract of a managed command (default text). */
  readonly result?: object;
  /** Machine interaction (default `none`). */
  readonly interaction?: "none" | "optional" | "required";
  /** Requested actions and resources, if any. */
  readonly requests?: {
    readonly actions: readonly string[];
    readonly resources: readonly string[];
  };
  /** `native` runs `bin/native`; otherwise `bin/commands.mjs` under node. */
  readonly runtime?: "node" | "native";
  /** A passthrough command running `bin/passthrough.mjs`, without a machine block. */
  readonly passthrough?: boolean;
}

/**
 * A `rukh.extension/2` descriptor published by the fixture publisher with one command per entry.
 *
 * @example
 * commandsDescriptor("fx.main", "1.0.0", [{ id: "hello", inputs: [str("name")] }]);
 */
export function commandsDescriptor(
  id: string,
  version: string,
  commands: readonly FixtureCommand[],
): object {
  return {
    format: "rukh.extension/2",
    id,
    version,
    publisher: FIXTURE_PUBLISHER,
    commands: commands.map((c) => ({
      id: c.id,
      path: [c.id.replaceAll("_", "-")],
      summary: `Run ${c.id}`,
      inputs: c.inputs ?? [],
      execute: c.passthrough
        ? { mapping: "passthrough", program: "bin/passthrough.mjs", runtime: "node" }
        : c.runtime === "native"
          ? managed(c.result, "bin/native", "native")
          : managed(c.result),
      ...(c.requests && { requests: c.requests }),
      ...(!c.passthrough && { machine: machine(c.interaction) }),
    })),
  };
}

/** What {@link writeFixturePackage} writes. */
export interface FixturePackage {
  /** Directory the package directory is created in. */
  readonly parent: string;
  /** Written as `rukh-extension.json`. */
  readonly descriptor: object;
  /** Files by package-relative path; text has its `from "@rukh/ipc"` import pointed at the runtime. */
  readonly programs: Readonly<Record<string, string | Buffer>>;
  /** Who signs it; default the fixture publisher's key. */
  readonly signer?: { readonly key: KeyObject | string; readonly publisher: string };
}

/**
 * Writes an extension package directory under `parent` and signs it as the fixture publisher.
 * Returns the package directory.
 *
 * @example
 * const dir = await writeFixturePackage({
 *   parent: work,
 *   descriptor,
 *   programs: { "bin/commands.mjs": readFileSync(program, "utf8") },
 * });
 */
export async function writeFixturePackage(pkg: FixturePackage): Promise<string> {
  const dir = mkdtempSync(join(pkg.parent, "pkg-"));
  writeFileSync(join(dir, "rukh-extension.json"), JSON.stringify(pkg.descriptor, null, 2));
  const ipc = JSON.stringify(ipcRuntimeUrl());
  for (const [path, source] of Object.entries(pkg.programs)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(
      join(dir, path),
      typeof source === "string" ? source.replace('from "@rukh/ipc"', `from ${ipc}`) : source,
    );
  }
  await signPackage(dir, pkg.signer?.key ?? FIXTURE_KEY, {
    publisher: pkg.signer?.publisher ?? FIXTURE_PUBLISHER,
  });
  return dir;
}

/** What {@link writeHiFixturePackage} writes. */
export interface HiFixturePackage {
  /** Directory the package directory is created in. */
  readonly parent: string;
  /** The extension id: `acme.hello`. */
  readonly id: string;
  /** The extension's version. */
  readonly version: string;
  /** Its one command's path (default: the id, each non-word character a `-`). */
  readonly path?: readonly string[];
  /** What its one command answers (default: `<id> <version>`). */
  readonly text?: string;
  /** The descriptor's publisher (default the fixture publisher). */
  readonly publisher?: string;
  /** Who signs it (default the fixture publisher's key). */
  readonly signer?: FixturePackage["signer"];
  /** More files of the package, by package-relative path. */
  readonly files?: Readonly<Record<string, string>>;
}

/**
 * A signed extension package directory with one command, `hi`, that
 * answers a fixed text. Returns the package directory.
 *
 * @example
 * const dir = await writeHiFixturePackage({ parent: work, id: "acme.tools", version: "1.1.0" });
 */
export function writeHiFixturePackage(p: HiFixturePackage): Promise<string> {
  const text = JSON.stringify(p.text ?? `${p.id} ${p.version}`);
  return writeFixturePackage({
    parent: p.parent,
    descriptor: {
      format: "rukh.extension/2",
      id: p.id,
      version: p.version,
      publisher: p.publisher ?? FIXTURE_PUBLISHER,
      commands: [
        {
          id: "hi",
          path: p.path ?? [p.id.replace(/\W/g, "-")],
          summary: "Say hi",
          inputs: [],
          execute: managed({ kind: "text" }, "bin/hi.mjs"),
          machine: machine(),
        },
      ],
    },
    programs: {
      ...p.files,
      "bin/hi.mjs": `import { runCommandProcess, textResult } from "@rukh/ipc";\nawait runCommandProcess({ handlers: { "${p.id}/hi": () => textResult(${text}) } });\n`,
    },
    ...(p.signer !== undefined && { signer: p.signer }),
  });
}

/** What {@link writeNpmFixturePackage} writes. */
export interface NpmFixturePackage extends Omit<HiFixturePackage, "path" | "text" | "files"> {
  /** The npm package name: `@jane/hello`. */
  readonly name: string;
  /** The extension's and the npm package's version. */
  readonly version: string;
  /** Its one command's word (default: the id, each non-word character a `-`). */
  readonly word?: string;
}

/**
 * A signed extension package directory that is also an npm package (its
 * `package.json` signed with the rest), for registry tests: one command
 * `hi` that answers `<id> <version>`. Returns the package directory.
 *
 * @example
 * const dir = await writeNpmFixturePackage({ parent: work, name: "@jane/hello", id: "acme.hello", version: "1.0.0" });
 */
export function writeNpmFixturePackage(p: NpmFixturePackage): Promise<string> {
  const { name, word, ...hi } = p;
  const manifest = { name, version: p.version, description: "a Rukh extension" };
  return writeHiFixturePackage({
    ...hi,
    ...(word !== undefined && { path: [word] }),
    files: { "package.json": `${JSON.stringify(manifest, null, 2)}\n` },
  });
}

/** The consent a host-trusted fixture preset carries, so the suites may serve it to their agents. */
export const FIXTURE_AGENT_CONSENT =
  "the test suites' agents may run these fixture commands unconfined";

/**
 * A task preset for fixture owner configs: no actions or resources, four at
 * a time, host-trusted with the owner's consent to serve it to agents
 * (`FIXTURE_AGENT_CONSENT`; a strict one needs and carries none).
 *
 * @example
 * fixturePreset({ commands: ["fx.main/*"], deadlineMs: 10_000, maxConcurrency: 2 });
 */
export function fixturePreset({
  commands,
  deadlineMs,
  ...over
}: {
  commands: readonly string[];
  deadlineMs: number;
  [key: string]: unknown;
}): Record<string, unknown> {
  const strict = over.enforcement === "strict";
  return {
    commands,
    actions: [],
    resources: [],
    deadlineMs,
    maxConcurrency: 4,
    enforcement: "host-trusted",
    ...(!strict && { agentConsent: FIXTURE_AGENT_CONSENT }),
    ...over,
  };
}

/**
 * An owner config branded and trusting the fixture publisher, with `default` as default preset.
 *
 * @example
 * fixtureOwnerConfig({ endpointNamespace: "acme-test", exposure, presets: { default: p } });
 */
export function fixtureOwnerConfig({
  endpointNamespace,
  exposure,
  presets,
  ...rest
}: {
  endpointNamespace: string;
  exposure: object;
  presets: object;
  [key: string]: unknown;
}): Record<string, unknown> {
  return {
    brand: FIXTURE_PUBLISHER,
    endpointNamespace,
    // Test extensions are fx.* and acme.*, all signed by the one fixture key.
    trustedPublishers: [
      { id: FIXTURE_PUBLISHER, publicKey: FIXTURE_PUB, namespaces: ["acme.*", "fx.*"] },
    ],
    exposure,
    presets,
    defaultPreset: "default",
    ...rest,
  };
}

/** What {@link fixtureState} sets up. */
export interface FixtureStateOptions {
  /** Prefix of the temporary work directory. */
  readonly prefix: string;
  /** An existing, empty work directory to use instead of a new one (when paths must be known before). */
  readonly at?: string;
  /** The owner config, stored as JSON. */
  readonly config: object;
  /** Writes the package directories to install under `work` (see {@link writeFixturePackage}). */
  readonly packages: (work: string) => Promise<readonly string[]>;
  /** `each`: one install (one revision) per package, in order; `together`: one change for all. */
  readonly install: "each" | "together";
}

/** A state directory made by {@link fixtureState}. */
export interface FixtureState {
  /** The temporary work directory holding `root` and the package directories. */
  readonly work: string;
  /** The state directory's path, `work/home`. */
  readonly root: string;
  readonly state: StateDirectory;
}

/**
 * A fresh state directory under a temporary work directory with the owner config set and the
 * packages installed.
 *
 * @example
 * const { root, state, work } = await fixtureState({
 *   prefix: "rukh-core-",
 *   config,
 *   packages: async (work) => [await writeFixturePackage({ parent: work, descriptor, programs })],
 *   install: "each",
 * });
 */
export async function fixtureState(options: FixtureStateOptions): Promise<FixtureState> {
  const work = options.at ?? tempDir(options.prefix);
  const root = join(work, "home");
  const state = new StateDirectory(root);
  await state.setConfig(JSON.stringify(options.config));
  const packages = await options.packages(work);
  if (options.install === "together")
    await state.apply(packages.map((source) => ({ op: "install" as const, source })));
  else for (const source of packages) await state.install(source);
  return { work, root, state };
}

/** What {@link exposedState} sets up. */
export interface ExposedStateOptions {
  /** Prefix of the temporary work directory. */
  readonly prefix: string;
  /** An existing, empty work directory to use instead of a new one (when paths must be known before). */
  readonly at?: string;
  /** The owner config's endpoint namespace. */
  readonly endpointNamespace: string;
  /** The owner config's presets; `default` is the default one. */
  readonly presets: object;
  /** The rest of the owner config (`mcp`, `journal`, …). */
  readonly config?: object;
  /** The extension packages, written under the work directory and installed in order. */
  readonly packages: readonly ExposedPackage[];
}

/** One package of {@link exposedState}, written by {@link writeFixturePackage}. */
export interface ExposedPackage extends Omit<FixturePackage, "parent" | "descriptor"> {
  /** Written as `rukh-extension.json`; its `id` is exposed. */
  readonly descriptor: { readonly id: string; readonly [field: string]: unknown };
}

/**
 * A fresh state directory (see {@link fixtureState}) with an owner config
 * trusting the fixture publisher and exposing every extension of `packages`,
 * each package installed as a revision of its own.
 *
 * @example
 * const { root, work } = await exposedState({
 *   prefix: "rukh-cli-",
 *   endpointNamespace: "acme-cli",
 *   presets: { default: fixturePreset({ commands: ["fx.main/*"], deadlineMs: 10_000 }) },
 *   packages: [{ descriptor, programs: { "bin/commands.mjs": source } }],
 * });
 */
export function exposedState(options: ExposedStateOptions): Promise<FixtureState> {
  return fixtureState({
    prefix: options.prefix,
    ...(options.at !== undefined && { at: options.at }),
    config: fixtureOwnerConfig({
      endpointNamespace: options.endpointNamespace,
      exposure: { extensions: options.packages.map((p) => p.descriptor.id) },
      presets: options.presets,
      ...options.config,
    }),
    packages: async (work) => {
      const dirs: string[] = [];
      for (const p of options.packages)
        dirs.push(await writeFixturePackage({ parent: work, ...p }));
      return dirs;
    },
    install: "each",
  });
}

/**
 * The baseline the core and MCP benchmarks measure against: spawn `program`
 * with Node and run one invocation of `command` over the bare `@rukh/ipc`
 * channel, without profile, admission or journal. Uses the core's default
 * child environment so both sides start the same Node.
 *
 * @example
 * await bareIpcInvocation("/store/abc/bin/cmd.mjs", "bench.core/noop");
 */
export async function bareIpcInvocation(program: string, command: string): Promise<void> {
  const proc = spawnCommandProcess({
    program: process.execPath,
    args: [program],
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  proc.child.stdout?.resume();
  proc.child.stderr?.resume();
  const exited = new Promise((resolve) => proc.child.once("close", resolve));
  proc.invoke({
    invocationId: "bench",
    command,
    inputs: {},
    explicitInputIds: [],
    remainingMs: 60_000,
    features: [],
  });
  const done = await proc.completion;
  if (done.outcome !== "succeeded") throw new Error(`bare invocation of ${command} failed`);
  await exited;
  await proc.closed;
}

const NODE_PROCESS_NAMES = ["node", "MainThread", "node-MainThread"];

/**
 * Live processes (zombies excluded) whose command line contains `marker`,
 * and whose name is `comm` if given, found by scanning /proc: the view from
 * outside every pid namespace, which is how a test proves that nothing a
 * command started outlived it.
 *
 * @example
 * expect(processesWith(marker)).toEqual([]);
 */
export function processesWith(marker: string, comm?: string): number[] {
  // Node names its main thread, and with it the process: "node" up to 22,
  // "MainThread" on 24 and "node-MainThread" on 26. Asked for node, any of them.
  const names = comm === "node" ? NODE_PROCESS_NAMES : comm === undefined ? undefined : [comm];
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      if (
        names !== undefined &&
        !names.includes(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")))
      )
        continue;
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) found.push(Number(name));
    } catch {}
  }
  return found;
}
export type { ReadOnlyMount } from "./_mount.js";
export { fillFileSystem, mountReadOnly } from "./_mount.js";
export { freePort } from "./_net.js";

/**
 * How many tests `node --test` printed as passed, in either of its
 * reporters (TAP's `# pass N` when piped on Node 20 and 22, the spec
 * reporter's `ℹ pass N` on 24 and later), or `null` when it printed none.
 *
 * @example
 * expect(nodeTestPasses(spawnSync(process.execPath, ["--test"]).stdout)).toBe(1);
 */
export function nodeTestPasses(stdout: string): number | null {
  const found = /^(?:# |ℹ )pass (\d+)$/m.exec(stdout);
  return found === null ? null : Number(found[1]);
}
