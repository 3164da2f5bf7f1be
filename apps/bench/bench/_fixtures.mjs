// What the benches measure against: realistic signed packages, state
// directories of 10 to 10,000 commands, and spawns of the shipped binary with
// a clean environment. States are built once per `pnpm bench` run (every
// bench file shares them) and removed when it exits.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StateDirectory, signPackage } from "@rukh/profile";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
/** The binary users run. */
export const RUKH = join(repo, "apps/reference-cli/bin/rukh");
const KEY = readFileSync(join(repo, "fixtures/keys/example-publisher.key"), "utf8");
const PUB = readFileSync(join(repo, "fixtures/keys/example-publisher.pub"), "utf8").trim();
const RUNTIME = dirname(createRequire(import.meta.url).resolve("@rukh/ipc/runtime"));

export const WORK = mkdtempSync(join(tmpdir(), "rukh-bench-"));
process.on("exit", () => rmSync(WORK, { recursive: true, force: true }));

/** A child's whole environment: nothing of the caller's (no CA bundle, no NODE_OPTIONS). */
export function cleanEnv(extra = {}) {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: WORK, LANG: "C.UTF-8", ...extra };
}

/** Runs a process to its end; throws unless it exits 0. */
export function run(file, args, env = cleanEnv()) {
  const r = spawnSync(file, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  if (r.status !== 0)
    throw new Error(`${file} ${args.join(" ")} exited ${r.status}: ${r.stderr?.toString()}`);
}

/** The same, asynchronously (so that concurrent runs overlap). */
export function runAsync(file, args, env = cleanEnv()) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

const managed = { mapping: "managed", program: "bin/main.mjs", runtime: "node" };
const machine = {
  eligible: true,
  interaction: "none",
  requiredFeatures: ["rukh.command-result/1"],
};

function descriptor(id, group, commands, version) {
  return {
    format: "rukh.extension/2",
    id,
    version,
    publisher: "acme",
    groups: [{ path: [group], summary: `Commands of ${id}` }],
    commands: Array.from({ length: commands }, (_, c) => ({
      id: `c${c}`,
      path: [group, `c${c}`],
      summary: `Command ${c} of ${id}`,
      description: `Does the ${c}th thing of ${id}, and prints what it did.`,
      inputs: [
        { id: "name", type: "string", maxLength: 64, summary: "A name" },
        { id: "count", type: "integer", minimum: 0, maximum: 100, summary: "How many", default: 1 },
        { id: "verbose", type: "boolean", summary: "Say more", default: false },
      ],
      execute: { ...managed, result: { kind: "text" } },
      machine,
    })),
  };
}

/**
 * Writes and signs one extension package as an author ships it: descriptor,
 * program, library modules, data, a README and the vendored child runtime
 * (19 files).
 */
export async function writePackage(dir, { id, group, commands, version = "1.0.0" }) {
  rmSync(dir, { recursive: true, force: true });
  for (const d of ["bin", "lib", "data", "node_modules/@rukh/ipc"])
    mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(
    join(dir, "rukh-extension.json"),
    JSON.stringify(descriptor(id, group, commands, version), null, 2),
  );
  // As npm would publish it: the vendored runtime is a bundled dependency.
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: id,
      type: "module",
      version,
      dependencies: { "@rukh/ipc": "*" },
      bundleDependencies: ["@rukh/ipc"],
    }),
  );
  writeFileSync(join(dir, "README.md"), `# ${id}\n\nBenchmark extension.\n`);
  writeFileSync(join(dir, "LICENSE"), "MIT\n");
  writeFileSync(join(dir, "data", "defaults.json"), JSON.stringify({ greeting: "ok" }));
  writeFileSync(join(dir, "data", "messages.json"), JSON.stringify({ done: "done" }));
  const libs = ["format", "strings", "numbers", "paths", "time", "errors"];
  for (const l of libs)
    writeFileSync(join(dir, "lib", `${l}.mjs`), `export const ${l} = (x) => String(x);\n`);
  writeFileSync(
    join(dir, "lib", "handlers.mjs"),
    `${libs.map((l) => `import { ${l} } from "./${l}.mjs";`).join("\n")}
import { textResult } from "@rukh/ipc";
export function handlers(ids) {
  const out = {};
  for (const id of ids) out[id] = ({ inputs }) => textResult(format(inputs.name ?? "ok") + strings(""));
  return out;
}
`,
  );
  writeFileSync(
    join(dir, "bin", "main.mjs"),
    `import { runCommandProcess } from "@rukh/ipc";
import { handlers } from "../lib/handlers.mjs";
const ids = Array.from({ length: ${commands} }, (_, c) => ${JSON.stringify(id)} + "/c" + c);
await runCommandProcess({ handlers: handlers(ids) });
`,
  );
  cpSync(RUNTIME, join(dir, "node_modules/@rukh/ipc"), { recursive: true });
  await signPackage(dir, KEY, { publisher: "acme" });
  return dir;
}

/**
 * An owner configuration trusting the bench publisher, every `bench.*`
 * extension exposed, allowed to `default` (host-trusted) and to `agent`
 * (strict: each call in bubblewrap); the CLI's calls run under
 * `defaultPreset`.
 */
export function ownerConfig(ids, defaultPreset = "default") {
  const preset = (enforcement) => ({
    commands: ids.map((id) => `${id}/*`),
    actions: [],
    resources: [],
    deadlineMs: 60_000,
    maxConcurrency: 16,
    enforcement,
    // The benches serve it to their MCP clients: the owner's consent to that.
    ...(enforcement === "host-trusted" && {
      agentConsent: "the benches' clients may run the bench commands unconfined",
    }),
  });
  return {
    brand: "rukh",
    endpointNamespace: "bench",
    trustedPublishers: [{ id: "acme", publicKey: PUB, namespaces: ["bench.*"] }],
    exposure: { extensions: ids },
    presets: { default: preset("host-trusted"), agent: preset("strict") },
    defaultPreset,
    mcp: { toolNames: "compact" },
  };
}

const states = new Map();

/**
 * A state directory with `commands` commands, `perExtension` to each
 * extension (ids `bench.e<i>`, paths `e<i> c<j>`), the CLI's calls under
 * `defaultPreset`, built once per run.
 */
export function state(commands, perExtension, defaultPreset = "default") {
  const key = `${commands}x${perExtension}${defaultPreset === "default" ? "" : `-${defaultPreset}`}`;
  if (!states.has(key)) states.set(key, build(key, commands, perExtension, defaultPreset));
  return states.get(key);
}

async function build(key, commands, perExtension, defaultPreset) {
  const root = join(WORK, key);
  const count = Math.ceil(commands / perExtension);
  const ids = Array.from({ length: count }, (_, i) => `bench.e${i}`);
  const sources = [];
  for (let i = 0; i < count; i++)
    sources.push(
      await writePackage(join(root, "src", `e${i}`), {
        id: ids[i],
        group: `e${i}`,
        commands: Math.min(perExtension, commands - i * perExtension),
      }),
    );
  const home = new StateDirectory(join(root, "home"));
  await home.setConfig(ownerConfig(ids, defaultPreset));
  await home.apply(sources.map((source) => ({ op: "install", source })));
  const tools = (await home.projection()).tools;
  return {
    root: home.root,
    ids,
    env: cleanEnv({ RUKH_HOME: home.root }),
    tool: tools.find((t) => t.identity === "bench.e0/c0")?.name,
  };
}
