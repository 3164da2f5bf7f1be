import { dirname } from "node:path";

/** The two enforcement profiles a task preset may name. */
export type EnforcementProfile = "host-trusted" | "strict";

/**
 * Per-invocation resource limits, applied as kernel resource limits to the
 * command process and everything it starts.
 */
export interface ResourceLimits {
  /** Private writable memory of each process, in bytes (RLIMIT_DATA: heap and anonymous mappings, not reserved address space). */
  readonly memoryBytes: number;
  /** Processes the command's user may have (RLIMIT_NPROC; counted inside the sandbox's user namespace). */
  readonly processes: number;
  /** Open descriptors of each process (RLIMIT_NOFILE). */
  readonly openFiles: number;
  /** Largest file a process may write (RLIMIT_FSIZE); beyond it the write fails with SIGXFSZ. */
  readonly fileSizeBytes: number;
}

/** What this machine offers the launcher: the checked helper programs and the facts a plan needs. */
export interface LaunchEnvironment {
  /** The trusted bubblewrap that passed its probe, or why there is none. */
  readonly sandbox: { readonly path: string } | { readonly unavailable: string };
  /** Whether the host-trusted pid-namespace launch passed its probe. */
  readonly hostPidNamespace: boolean;
  readonly prlimit: string | null;
  /** `setpriv`, needed when the host runs as root: strict commands then run as uid 65534. */
  readonly setpriv: string | null;
  /** A trusted `/bin/sh` for the watchdog of commands without a pid namespace. */
  readonly shell: string | null;
  readonly root: boolean;
  /** How this Node switches its permission model on, or why strict Node commands cannot have it. */
  readonly nodePermission: NodePermission;
  /** Real path of the Node binary that runs Node commands. */
  readonly nodeBinary: string;
  /** Real directories a strict Node child may read besides its package: the `@rukh/ipc` runtime and what it imports. */
  readonly runtimeReadDirs: readonly string[];
  /** Real path of the runtime's hold bootstrap (`@rukh/ipc/held`), inside the runtime's directories. */
  readonly heldBootstrap: string;
  /** System directories shown read-only inside the sandbox: real ones bound, symlinked ones recreated. */
  readonly systemEntries: readonly SystemEntry[];
  /** Directories that get an empty tmpfs inside the sandbox (the user's home and runtime directory among them). */
  readonly privateDirs: readonly string[];
}

/**
 * The flag that switches on a Node's permission model: `--permission` where
 * the model is stable (Node 22.13 and later), `--experimental-permission`
 * where it is not yet (Node 20, early 22); or why there is none.
 */
export type NodePermission =
  | { readonly flag: "--permission" | "--experimental-permission" }
  | { readonly unavailable: string };

/**
 * Finds the permission model among the flags a Node accepts (its
 * `process.allowedNodeEnvironmentFlags`): the stable spelling first. Pure.
 *
 * @example
 * nodePermissionOf("v24.21.0", process.allowedNodeEnvironmentFlags); // { flag: "--permission" }
 */
export function nodePermissionOf(version: string, flags: ReadonlySet<string>): NodePermission {
  if (flags.has("--permission")) return { flag: "--permission" };
  if (flags.has("--experimental-permission")) return { flag: "--experimental-permission" };
  return {
    unavailable: `Node ${version} has no permission model (it accepts neither --permission nor --experimental-permission)`,
  };
}

/** A top-level system path and how the sandbox shows it. */
export type SystemEntry =
  | { readonly path: string; readonly bind: true }
  | { readonly path: string; readonly bind: false; readonly target: string };

/** One command to launch. */
export interface LaunchRequest {
  readonly profile: EnforcementProfile;
  readonly runtime: "node" | "native";
  readonly program: string;
  readonly packageDir: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly limits: ResourceLimits;
  /** A passthrough program keeps the caller's terminal session. */
  readonly interactive: boolean;
  /**
   * A Node command started held: Node runs the runtime's hold bootstrap,
   * which runs the program only once the host releases it.
   */
  readonly held?: boolean;
}

/** A program and its arguments, ready to spawn, and how its tree is contained. */
export interface LaunchPlan {
  readonly program: string;
  readonly args: readonly string[];
  /** `pid-namespace`: the process tree dies with the first process; `process-group`: only its group is reachable. */
  readonly tree: "pid-namespace" | "process-group";
  /** The arguments name {@link STRICT_UID}: the launch must lease a uid and put it there. */
  readonly transientUid?: true;
  /** The complete environment of a strict command (the sandbox clears the rest); `undefined` for host-trusted. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Why a plan cannot be made: the strict profile is never run unconfined. */
export interface LaunchRefusal {
  readonly unavailable: string;
}

/**
 * Where a plan names the transient uid a strict command of a root host runs
 * as: each launch replaces it with a uid leased for its process alone.
 */
export const STRICT_UID = "{uid}";

/** The variables a strict command sees; nothing else of the host's environment crosses. */
export function strictEnvironment(home: string): Record<string, string> {
  return { PATH: "/usr/bin:/bin", HOME: home, TMPDIR: "/tmp", RUKH_IPC_FD: "3" };
}

// The host's whole tree as it is, for bubblewrap. A plain bind is nodev:
// /dev again as devices, or /dev/null cannot be opened.
const HOST_ROOT = ["--bind", "/", "/", "--dev-bind", "/dev", "/dev"] as const;

const isSystemPath = (env: LaunchEnvironment, p: string) =>
  env.systemEntries.some((e) => e.path === p);
const withSlash = (dir: string) => (dir.endsWith("/") ? dir : `${dir}/`);
const under = (path: string, dir: string) => path === dir || path.startsWith(withSlash(dir));

/**
 * The prlimit prefix. The process limit counts every process of the user, so
 * it is set only where the command has a user (namespace) of its own.
 */
function limitArgs(prlimit: string, l: ResourceLimits, ownUser: boolean): string[] {
  return [
    prlimit,
    `--data=${l.memoryBytes}`,
    ...(ownUser ? [`--nproc=${l.processes}`] : []),
    `--nofile=${l.openFiles}`,
    `--fsize=${l.fileSizeBytes}`,
    "--",
  ];
}

function nodeArgs(req: LaunchRequest, env: LaunchEnvironment, strict: boolean): string[] {
  // No V8 heap flag: any of them costs a Node start about 15 ms.
  const program = req.held === true ? [env.heldBootstrap, req.program] : [req.program];
  if (!strict) return [env.nodeBinary, ...program, ...req.args];
  // Inside the sandbox Node's permission model is a second layer: writes,
  // child processes, workers and addons stay denied, reads are the package's.
  // launchPlan refuses a Node command before this when there is no flag.
  const flag = "flag" in env.nodePermission ? env.nodePermission.flag : "--permission";
  return [
    env.nodeBinary,
    flag,
    "--disable-warning=ExperimentalWarning",
    `--allow-fs-read=${withSlash(req.packageDir)}`,
    ...env.runtimeReadDirs.map((d) => `--allow-fs-read=${withSlash(d)}`),
    ...program,
    ...req.args,
  ];
}

function strictSandboxArgs(req: LaunchRequest, env: LaunchEnvironment, home: string): string[] {
  const a: string[] = [];
  if (env.root)
    // Root's sandbox is made as root, so it can show what only root may
    // read; setpriv then makes the command a uid of its own with no
    // capabilities (only the caps setpriv needs survive until then), and a
    // second bubblewrap gives it a user namespace of its own.
    a.push(
      "--unshare-pid",
      "--unshare-net",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--cap-drop",
      "ALL",
      "--cap-add",
      "CAP_SETUID",
      "--cap-add",
      "CAP_SETGID",
      "--cap-add",
      "CAP_SETPCAP",
    );
  else a.push("--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL");
  a.push("--die-with-parent", "--new-session", "--clearenv");
  for (const [k, v] of Object.entries(strictEnvironment(home))) a.push("--setenv", k, v);
  for (const e of env.systemEntries)
    if (e.bind) a.push("--ro-bind", e.path, e.path);
    else a.push("--symlink", e.target, e.path);
  a.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm");
  a.push("--tmpfs", "/tmp", "--tmpfs", "/run");
  for (const d of env.privateDirs) a.push("--tmpfs", d);
  const system = (p: string) => env.systemEntries.some((e) => e.bind && under(p, e.path));
  const binds = new Set<string>();
  if (req.runtime === "node") {
    if (!system(env.nodeBinary)) binds.add(env.nodeBinary);
    for (const d of env.runtimeReadDirs) binds.add(d);
  }
  binds.add(req.packageDir);
  // The second bubblewrap of a root host runs inside.
  const sandbox = "path" in env.sandbox ? env.sandbox.path : undefined;
  if (env.root && sandbox !== undefined && !system(sandbox)) binds.add(sandbox);
  // bubblewrap would copy the modes of the host's parents (a 0700 home
  // locks out uid 65534), so the parents are made first, world-traversable.
  const parents = new Set<string>();
  for (const b of binds)
    for (let p = dirname(b); p !== "/" && !system(p) && !isSystemPath(env, p); p = dirname(p))
      parents.add(p);
  for (const p of [...parents].sort((x, y) => x.length - y.length))
    a.push("--perms", "0755", "--dir", p);
  // Mounted after the tmpfs directories, so a package under /tmp or $HOME stays visible.
  for (const b of binds) a.push("--ro-bind", b, b);
  a.push("--chdir", req.packageDir, "--");
  return a;
}

/**
 * How to launch one command, or why the strict profile cannot be enforced
 * here. Pure: every fact about the machine comes in `env`.
 *
 * - strict: bubblewrap with every namespace unshared, no capabilities, a new
 *   session, a cleared environment and a read-only view of the system
 *   directories, the Node binary and runtime and the package only; resource
 *   limits through prlimit; Node's permission model inside.
 * - host-trusted: the command sees the host as it is; where bubblewrap works
 *   it runs in a pid namespace of its own so its whole tree ends with it.
 */
export function launchPlan(
  req: LaunchRequest,
  env: LaunchEnvironment,
  home: string,
): LaunchPlan | LaunchRefusal {
  const command = req.runtime === "node" ? nodeArgs(req, env, req.profile === "strict") : [];
  const direct = req.runtime === "node" ? command : [req.program, ...req.args];
  if (req.profile === "host-trusted") {
    const namespaced = "path" in env.sandbox && env.hostPidNamespace;
    const limited =
      env.prlimit === null
        ? direct
        : [...limitArgs(env.prlimit, req.limits, namespaced && !env.root), ...direct];
    if (namespaced && "path" in env.sandbox)
      return {
        program: env.sandbox.path,
        args: [
          ...HOST_ROOT,
          "--proc",
          "/proc",
          "--unshare-pid",
          "--die-with-parent",
          ...(req.interactive ? [] : ["--new-session"]),
          "--chdir",
          req.cwd,
          "--",
          ...limited,
        ],
        tree: "pid-namespace",
      };
    const [program, ...args] = limited as [string, ...string[]];
    return { program, args, tree: "process-group" };
  }
  if (!("path" in env.sandbox)) return { unavailable: env.sandbox.unavailable };
  if (env.prlimit === null)
    return { unavailable: "prlimit (util-linux) is not installed in a trusted location" };
  if (env.root && env.setpriv === null)
    return { unavailable: "setpriv (util-linux) is needed to drop root and is not installed" };
  if (req.runtime === "node" && "unavailable" in env.nodePermission)
    return { unavailable: env.nodePermission.unavailable };
  // A root host's command: its own uid, then its own user namespace where
  // no further one can be made (what the unprivileged path has by itself).
  const drop = env.root
    ? [
        env.setpriv as string,
        `--reuid=${STRICT_UID}`,
        `--regid=${STRICT_UID}`,
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
        env.sandbox.path,
        "--unshare-user",
        "--disable-userns",
        "--uid",
        STRICT_UID,
        "--gid",
        STRICT_UID,
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        ...HOST_ROOT,
        "--",
      ]
    : [];
  return {
    program: env.sandbox.path,
    args: [
      ...strictSandboxArgs(req, env, home),
      ...drop,
      ...limitArgs(env.prlimit, req.limits, true),
      ...direct,
    ],
    tree: "pid-namespace",
    env: strictEnvironment(home),
    ...(env.root && { transientUid: true as const }),
  };
}
