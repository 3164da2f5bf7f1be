import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join } from "node:path";
import { STRICT_UIDS_DEFAULT } from "@rukh/profile";
import {
  type LaunchEnvironment,
  launchPlan,
  type NodePermission,
  nodePermissionOf,
  type ResourceLimits,
  STRICT_UID,
  type SystemEntry,
} from "./_launch.js";
import { type ProbeAnswers, probeKey, readProbe, writeProbe } from "./_probe-cache.js";
import { SYSTEM_PROCESS_TABLE, trustedPs } from "./_tree.js";
import { locateTrustedProgram, type TrustedProgram } from "./_trusted.js";
import { leaseUid } from "./_uids.js";

/** Where bubblewrap is looked for when the owner configuration names none. */
export const SANDBOX_PROGRAM_CANDIDATES = ["/usr/bin/bwrap", "/bin/bwrap"] as const;
const PRLIMIT_CANDIDATES = ["/usr/bin/prlimit", "/bin/prlimit"];
const SETPRIV_CANDIDATES = ["/usr/bin/setpriv", "/bin/setpriv"];
const TRUE_CANDIDATES = ["/usr/bin/true", "/bin/true"];
const SHELL_CANDIDATES = ["/bin/sh", "/usr/bin/sh"];
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

function packageRoot(file: string): string {
  let dir = dirname(file);
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${file}`);
    dir = up;
  }
  return dir;
}

function findDependency(from: string, name: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/**
 * The probe's Node command (`probe/node-permission.cjs` of this package),
 * found through the package's own name, so the bundled CLI finds it too.
 */
function nodePermissionProbe(): string {
  const manifest = createRequire(import.meta.url).resolve("@rukh/core/package.json");
  return join(dirname(realpathSync(manifest)), "probe", "node-permission.cjs");
}

/** The real directories of `@rukh/ipc` and of its runtime dependencies, transitively. */
export function ipcRuntimeDirs(): string[] {
  runtimeDirs ??= findRuntimeDirs();
  return [...runtimeDirs];
}

let runtimeDirs: string[] | undefined;
let bootstrap: string | undefined;

/** The real path of the runtime's hold bootstrap (`@rukh/ipc/held`). */
function heldBootstrap(): string {
  bootstrap ??= realpathSync(createRequire(import.meta.url).resolve("@rukh/ipc/held"));
  return bootstrap;
}

function findRuntimeDirs(): string[] {
  const entry = createRequire(import.meta.url).resolve("@rukh/ipc");
  const out = new Set<string>();
  const walk = (root: string) => {
    if (out.has(root)) return;
    out.add(root);
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      const found = findDependency(root, dep);
      if (found !== null) walk(found);
    }
  };
  walk(realpathSync(packageRoot(entry)));
  return [...out].sort();
}

/**
 * A launch environment whose runtime directories and hold bootstrap are
 * looked up only when a launch first asks for them (resolving the runtime
 * and reading its manifests costs a host-trusted call several milliseconds
 * for nothing). Never spread the result: spreading reads the getters.
 */
function launchEnvironment(
  fields: Omit<LaunchEnvironment, "runtimeReadDirs" | "heldBootstrap" | "hostPidNamespace">,
  hostPidNamespace: boolean,
): LaunchEnvironment {
  return Object.defineProperties(
    { ...fields, hostPidNamespace },
    {
      runtimeReadDirs: { enumerable: true, get: ipcRuntimeDirs },
      heldBootstrap: { enumerable: true, get: heldBootstrap },
    },
  ) as LaunchEnvironment;
}

function systemEntries(): SystemEntry[] {
  const out: SystemEntry[] = [];
  for (const path of SYSTEM_DIRS) {
    try {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out.push({ path, bind: false, target: readlinkSync(path) });
      else if (st.isDirectory()) out.push({ path, bind: true });
    } catch {}
  }
  return out;
}

function privateDirs(entries: readonly SystemEntry[]): string[] {
  const out: string[] = [];
  for (const v of [process.env.HOME, process.env.XDG_RUNTIME_DIR]) {
    if (v === undefined || !isAbsolute(v) || v === "/" || out.includes(v)) continue;
    if (entries.some((e) => v === e.path || v.startsWith(`${e.path}/`))) continue;
    if (["/tmp", "/run", "/proc", "/dev"].includes(v)) continue;
    if (["/proc", "/dev"].some((d) => v.startsWith(`${d}/`))) continue;
    out.push(v);
  }
  return out;
}

/** The path a strict command sees as `$HOME`: the user's home, emptied by a tmpfs. */
export function strictHome(env: LaunchEnvironment): string {
  return env.privateDirs[0] ?? "/tmp";
}

const PROBE_LIMITS: ResourceLimits = {
  memoryBytes: 1_073_741_824,
  processes: 64,
  openFiles: 64,
  fileSizeBytes: 1_048_576,
};

async function runsCleanly(program: string, args: readonly string[], env?: object) {
  const { spawn } = await import("node:child_process");
  return new Promise<string | null>((resolve) => {
    const child = spawn(program, args, {
      stdio: ["ignore", "ignore", "pipe"],
      ...(env !== undefined && { env: env as NodeJS.ProcessEnv }),
    });
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      if (err.length < 2048) err += c.toString("utf8");
    });
    child.once("error", (e) => resolve(e.message));
    child.once("close", (code, signal) =>
      resolve(code === 0 ? null : err.trim() || `exited with ${code ?? signal}`),
    );
  });
}

/** What {@link detectConfinement} found; the launcher and `doctor` both read it. */
export interface Confinement {
  readonly environment: LaunchEnvironment;
  /** `null` when strict commands can run here, otherwise why every strict call is rejected. */
  readonly strictUnavailable: string | null;
  /** Why host-trusted commands run without a pid namespace (`null` when they have one). */
  readonly hostTreeFallback: string | null;
}

const cache = new Map<string, Promise<Confinement>>();

/**
 * Where a state directory keeps the probe's answers between processes
 * (`cache/confinement.json`, written through `tmp/`); `fresh` probes again
 * and replaces the record.
 */
export interface ProbeRecordOptions {
  readonly stateDir: string;
  readonly fresh?: boolean;
}

/**
 * Probes this machine once per sandbox location (and process): locates
 * bubblewrap by location (`program`, or the first existing of
 * {@link SANDBOX_PROGRAM_CANDIDATES}), checks who owns it, and runs the real
 * strict and host-trusted launches of `true` to learn whether user and pid
 * namespaces work here. `null` means no sandbox program at all. With
 * `record`, the launches' answers are reused from the state directory while
 * nothing they depend on has changed (at most an hour).
 */
export function detectConfinement(
  program?: string | null,
  record?: ProbeRecordOptions,
): Promise<Confinement> {
  const key = `${program === undefined ? "" : program === null ? "\0none" : program}\0${record?.stateDir ?? ""}`;
  let found = record?.fresh === true ? undefined : cache.get(key);
  if (found === undefined) {
    found = probe(program, record);
    cache.set(key, found);
  }
  return found;
}

/**
 * Why a strict preset's calls cannot run here (what admission would refuse
 * them with, `enforcement_unavailable`), or `null` when they can: for the
 * sandbox program an owner configuration names (`sandbox.program`, or the
 * default places when it names none), from the same probe and its record
 * beside the journal at `journalRoot`. What lists a strict preset's tools
 * asks it first, so that no list offers tools that can never run.
 *
 * @example
 * const why = await strictUnavailable(config.sandbox?.program, journalRoot);
 */
export async function strictUnavailable(
  program: string | null | undefined,
  journalRoot?: string,
): Promise<string | null> {
  const c = await detectConfinement(
    program,
    journalRoot === undefined ? undefined : { stateDir: journalRoot },
  );
  return c.strictUnavailable;
}

async function probe(
  program: string | null | undefined,
  record: ProbeRecordOptions | undefined,
): Promise<Confinement> {
  const uid = process.getuid?.() ?? -1;
  const entries = systemEntries();
  const trusted = (candidates: readonly string[], what: string) =>
    locateTrustedProgram(candidates, uid, what);
  const sandbox: TrustedProgram =
    program === null
      ? { ok: false, reason: "no sandbox program is configured" }
      : trusted(
          program === undefined ? SANDBOX_PROGRAM_CANDIDATES : [program],
          "bubblewrap (bwrap)",
        );
  const pathOf = (t: TrustedProgram) => (t.ok ? t.path : null);
  const prlimit = trusted(PRLIMIT_CANDIDATES, "prlimit");
  const setpriv = trusted(SETPRIV_CANDIDATES, "setpriv");
  const shell = trusted(SHELL_CANDIDATES, "sh");
  const fields: Omit<LaunchEnvironment, "runtimeReadDirs" | "heldBootstrap" | "hostPidNamespace"> =
    {
      sandbox: sandbox.ok ? { path: sandbox.path } : { unavailable: sandbox.reason },
      prlimit: pathOf(prlimit),
      setpriv: pathOf(setpriv),
      // The watchdog reads the process table: without a trusted ps where there is no /proc, none.
      shell: SYSTEM_PROCESS_TABLE === "ps" && trustedPs() === null ? null : pathOf(shell),
      root: uid === 0,
      nodePermission: nodePermissionOf(process.version, process.allowedNodeEnvironmentFlags),
      nodeBinary: realpathSync(process.execPath),
      systemEntries: entries,
      privateDirs: privateDirs(entries),
    };
  const base = launchEnvironment(fields, false);
  const truePath = TRUE_CANDIDATES.find((p) => existsSync(p));
  if (!sandbox.ok || truePath === undefined)
    return {
      environment: base,
      strictUnavailable: sandbox.ok
        ? "no `true` program to probe the sandbox with"
        : sandbox.reason,
      hostTreeFallback: sandbox.ok ? "no `true` program to probe the sandbox with" : sandbox.reason,
    };
  const request = (
    profile: "strict" | "host-trusted",
    runtime: "native" | "node",
    program: string,
    args: readonly string[] = [],
  ) =>
    launchPlan(
      {
        profile,
        runtime,
        program,
        packageDir: dirname(program),
        args,
        cwd: "/",
        limits: PROBE_LIMITS,
        interactive: false,
      },
      launchEnvironment(fields, true),
      "/tmp",
    );
  const run = async (plan: ReturnType<typeof launchPlan>) => {
    if ("unavailable" in plan) return plan.unavailable;
    if (plan.transientUid !== true) return runsCleanly(plan.program, plan.args, plan.env);
    // A root host's strict launch, as its calls make it: under a uid leased for it.
    const lease = await leaseUid(STRICT_UIDS_DEFAULT);
    if (lease === null) return "no uid of the default strict range is free";
    try {
      const uid = String(lease.uid);
      return await runsCleanly(
        plan.program,
        plan.args.map((a) => a.replaceAll(STRICT_UID, uid)),
        plan.env,
      );
    } finally {
      lease.release();
    }
  };
  const launch = async (): Promise<ProbeAnswers> => {
    const [strictError, hostError, nodeError] = await Promise.all([
      // A strict native command as commands are: it opens /dev/null and starts a program.
      shell.ok
        ? run(request("strict", "native", shell.path, ["-c", "/bin/true </dev/null >/dev/null"]))
        : run(request("strict", "native", truePath)),
      run(request("host-trusted", "native", truePath)),
      // A strict Node command: the permission model this Node has, asked whether it confines.
      run(request("strict", "node", nodePermissionProbe())),
    ]);
    return { strictError, hostError, nodeError };
  };
  let answers: ProbeAnswers;
  if (record === undefined) answers = await launch();
  else {
    const file = join(record.stateDir, "cache", "confinement.json");
    const key = probeKey([
      sandbox.path,
      pathOf(prlimit),
      pathOf(setpriv),
      pathOf(shell),
      truePath,
      nodePermissionProbe(),
    ]);
    const kept = record.fresh === true ? undefined : readProbe(file, key);
    answers = kept ?? (await launch());
    if (kept === undefined) writeProbe(file, join(record.stateDir, "tmp"), key, answers);
  }
  const { strictError, hostError, nodeError } = answers;
  // Where the sandbox itself fails, the Node probe failed for the same reason: keep that one.
  const nodePermission: NodePermission =
    strictError !== null || nodeError === null || "unavailable" in fields.nodePermission
      ? fields.nodePermission
      : { unavailable: nodeError };
  return {
    environment: launchEnvironment({ ...fields, nodePermission }, hostError === null),
    strictUnavailable:
      strictError === null ? null : `bubblewrap cannot create the sandbox here: ${strictError}`,
    hostTreeFallback:
      hostError === null ? null : `bubblewrap cannot create a pid namespace here: ${hostError}`,
  };
}

/**
 * What confinement this machine gives commands, in the words `doctor` prints.
 * The core rejects or launches calls from the same detection.
 *
 * @example
 * const r = await describeConfinement();
 * if (!r.strict.available) console.log(`strict commands are rejected: ${r.strict.reason}`);
 */
export interface ConfinementReport {
  /** The trusted bubblewrap in use, or `null`. */
  readonly sandboxProgram: string | null;
  readonly strict:
    | { readonly available: true; readonly detail: string }
    | { readonly available: false; readonly reason: string };
  /** Whether strict Node commands run, and with which permission model: the same answer a strict Node call gets. */
  readonly strictNode:
    | { readonly available: true; readonly detail: string }
    | { readonly available: false; readonly reason: string };
  /** How a host-trusted command's process tree is made to end with its invocation, and what that misses. */
  readonly hostTrustedTree: {
    readonly mechanism: "pid-namespace" | "process-group";
    readonly detail: string;
  };
  readonly resourceLimits:
    | { readonly enforced: true; readonly detail: string }
    | { readonly enforced: false; readonly reason: string };
}

/**
 * Reports {@link detectConfinement} for people: which sandbox, whether strict
 * works, how host-trusted trees are contained and whether limits are set.
 * `program` is the owner configuration's `sandbox.program`, if any.
 *
 * @example
 * for (const [k, v] of Object.entries(await describeConfinement())) console.log(k, v);
 */
export async function describeConfinement(
  program?: string | null,
  stateDir?: string,
): Promise<ConfinementReport> {
  // With a state directory: a fresh probe whose record replaces the kept one, so calls agree with it.
  const c = await detectConfinement(
    program,
    stateDir === undefined ? undefined : { stateDir, fresh: true },
  );
  const env = c.environment;
  const sandboxProgram = "path" in env.sandbox ? env.sandbox.path : null;
  const strict: ConfinementReport["strict"] =
    c.strictUnavailable !== null
      ? { available: false, reason: c.strictUnavailable }
      : env.prlimit === null
        ? {
            available: false,
            reason: "prlimit (util-linux) is not installed in a trusted location",
          }
        : env.root && env.setpriv === null
          ? { available: false, reason: "setpriv (util-linux) is needed to drop root" }
          : {
              available: true,
              detail: `bubblewrap ${sandboxProgram}: ${env.root ? "pid, network, ipc and uts namespaces, then a uid of its own for each call (from the strict range) in a user namespace of its own that can make no other; no capabilities" : "user, pid, network, ipc and uts namespaces, no further user namespace; no capabilities"}`,
            };
  const strictNode: ConfinementReport["strictNode"] = !strict.available
    ? strict
    : "unavailable" in env.nodePermission
      ? { available: false, reason: env.nodePermission.unavailable }
      : {
          available: true,
          detail: `Node ${process.version}'s permission model (${env.nodePermission.flag}) inside the sandbox: reads of its package and runtime only, no writes, child processes, workers or addons`,
        };
  const hostTrustedTree: ConfinementReport["hostTrustedTree"] = env.hostPidNamespace
    ? {
        mechanism: "pid-namespace",
        detail: `bubblewrap ${sandboxProgram} gives each command a pid namespace: everything it starts ends with it${env.root ? "" : " (in a user namespace: supplementary groups and setuid programs do not work inside)"}`,
      }
    : {
        mechanism: "process-group",
        detail: `process group (${c.hostTreeFallback})${env.shell === null ? "" : ", and a watchdog that kills it if the host dies"}: descendants that call setsid or start detached escape; the next start also kills what a lost host left`,
      };
  const resourceLimits: ConfinementReport["resourceLimits"] =
    env.prlimit === null
      ? { enforced: false, reason: "prlimit (util-linux) is not installed in a trusted location" }
      : { enforced: true, detail: `kernel resource limits through ${env.prlimit}` };
  return { sandboxProgram, strict, strictNode, hostTrustedTree, resourceLimits };
}
