import { accessSync, constants, existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";

/** The two enforcement profiles a task preset may name. */
export type EnforcementProfile = "host-trusted" | "strict";

/** A program and its arguments, ready to spawn. */
export interface LaunchPlan {
  readonly program: string;
  readonly args: readonly string[];
}

/** What the confinement needs to know about this machine, computed once per core. */
export interface EnforcementEnvironment {
  /** Absolute path of `bwrap`, or `null` when it is not installed. */
  readonly bwrap: string | null;
  /** Whether this Node has the permission model (`--experimental-permission`). */
  readonly nodePermission: boolean;
  /** Real directories a strict Node child may read besides its own package: the `@rukh/ipc` runtime and what it imports. */
  readonly runtimeReadDirs: readonly string[];
}

/** Finds an executable in PATH without running a shell. */
export function findExecutable(name: string, path = process.env.PATH ?? ""): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

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

/** The real directories of `@rukh/ipc` and of its runtime dependencies, transitively. */
export function ipcRuntimeDirs(): string[] {
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

/** Probes this machine once. */
export function detectEnforcement(bwrap?: string | null): EnforcementEnvironment {
  return {
    bwrap: bwrap !== undefined ? bwrap : findExecutable("bwrap"),
    nodePermission: process.allowedNodeEnvironmentFlags.has("--experimental-permission"),
    runtimeReadDirs: ipcRuntimeDirs(),
  };
}

const withSlash = (dir: string) => (dir.endsWith("/") ? dir : `${dir}/`);

/**
 * How to launch `programPath` (inside `packageDir`) under a profile, or
 * `undefined` when the profile cannot be enforced here: a strict call never
 * falls back to running unconfined.
 */
export function launchPlan(
  profile: EnforcementProfile,
  runtime: "node" | "native",
  programPath: string,
  packageDir: string,
  args: readonly string[],
  env: EnforcementEnvironment,
): LaunchPlan | undefined {
  if (profile === "host-trusted")
    return runtime === "node"
      ? { program: process.execPath, args: [programPath, ...args] }
      : { program: programPath, args };
  if (runtime === "node") {
    if (!env.nodePermission) return undefined;
    // Writes, child processes, workers and native addons stay denied: only
    // the listed reads are granted.
    return {
      program: process.execPath,
      args: [
        "--experimental-permission",
        "--disable-warning=ExperimentalWarning",
        `--allow-fs-read=${withSlash(packageDir)}`,
        ...env.runtimeReadDirs.map((d) => `--allow-fs-read=${withSlash(d)}`),
        programPath,
        ...args,
      ],
    };
  }
  if (env.bwrap === null) return undefined;
  return {
    program: env.bwrap,
    args: [
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--unshare-all",
      "--die-with-parent",
      "--new-session",
      "--",
      programPath,
      ...args,
    ],
  };
}
