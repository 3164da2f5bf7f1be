import { describe, expect, it } from "vitest";
import {
  type LaunchEnvironment,
  type LaunchRequest,
  launchPlan,
  nodePermissionOf,
} from "../../src/process/_launch.js";
import { TEST_ENVIRONMENT } from "../_environment.js";

const env = TEST_ENVIRONMENT;
const req: LaunchRequest = {
  profile: "strict",
  runtime: "node",
  program: "/home/u/.local/state/rukh/store/d1/bin/x.mjs",
  packageDir: "/home/u/.local/state/rukh/store/d1",
  args: ["a"],
  cwd: "/work",
  limits: { memoryBytes: 100, processes: 7, openFiles: 8, fileSizeBytes: 9 },
  interactive: false,
};
const argv = (r: ReturnType<typeof launchPlan>) =>
  "unavailable" in r ? r.unavailable : [r.program, ...r.args].join(" ");

describe("the permission model of each Node", () => {
  it.each([
    ["v20.19.0", ["--experimental-permission"], { flag: "--experimental-permission" }],
    ["v22.12.0", ["--experimental-permission"], { flag: "--experimental-permission" }],
    ["v22.23.3", ["--experimental-permission", "--permission"], { flag: "--permission" }],
    ["v24.21.0", ["--permission"], { flag: "--permission" }],
    ["v26.10.0", ["--permission", "--allow-net"], { flag: "--permission" }],
    [
      "v18.20.0",
      ["--inspect"],
      {
        unavailable:
          "Node v18.20.0 has no permission model (it accepts neither --permission nor --experimental-permission)",
      },
    ],
  ] as const)("Node %s accepting %j: %j", (version, flags, expected) => {
    expect(nodePermissionOf(version, new Set(flags))).toEqual(expected);
  });

  it("finds this Node's own", () => {
    expect(nodePermissionOf(process.version, process.allowedNodeEnvironmentFlags)).toHaveProperty(
      "flag",
    );
  });

  it.each([["--permission"], ["--experimental-permission"]] as const)(
    "switches a strict Node command's model on with %s",
    (flag) => {
      const plan = launchPlan(req, { ...env, nodePermission: { flag } }, "/home/u");
      expect(argv(plan)).toContain(
        `/opt/node/bin/node ${flag} --disable-warning=ExperimentalWarning --allow-fs-read=`,
      );
    },
  );
});

describe("launch plans", () => {
  it.each([
    [
      "no sandbox program",
      { sandbox: { unavailable: "bwrap is not installed" } },
      {},
      "bwrap is not installed",
    ],
    [
      "no prlimit",
      { prlimit: null },
      {},
      "prlimit (util-linux) is not installed in a trusted location",
    ],
    [
      "root without setpriv",
      { root: true, setpriv: null },
      {},
      "setpriv (util-linux) is needed to drop root and is not installed",
    ],
    [
      "Node without a permission model",
      { nodePermission: { unavailable: "Node v18.0.0 has no permission model" } },
      {},
      "Node v18.0.0 has no permission model",
    ],
  ] as const)("refuses strict with %s", (_n, over, reqOver, reason) => {
    expect(
      argv(launchPlan({ ...req, ...reqOver }, { ...env, ...over } as LaunchEnvironment, "/home/u")),
    ).toBe(reason);
  });

  it("confines a strict Node command: namespaces, no capabilities, cleared environment, private dirs, read-only binds, limits, permission model", () => {
    const plan = launchPlan(req, env, "/home/u");
    expect(argv(plan)).toBe(
      [
        "/usr/bin/bwrap --unshare-all --unshare-user --disable-userns --cap-drop ALL",
        "--die-with-parent --new-session --clearenv",
        "--setenv PATH /usr/bin:/bin --setenv HOME /home/u --setenv TMPDIR /tmp --setenv RUKH_IPC_FD 3",
        "--ro-bind /usr /usr --symlink usr/bin /bin",
        "--proc /proc --dev /dev --tmpfs /dev/shm --tmpfs /tmp --tmpfs /run --tmpfs /home/u",
        "--perms 0755 --dir /opt --perms 0755 --dir /home --perms 0755 --dir /home/u --perms 0755 --dir /opt/node",
        "--perms 0755 --dir /opt/rukh --perms 0755 --dir /opt/node/bin --perms 0755 --dir /home/u/.local",
        "--perms 0755 --dir /home/u/.local/state --perms 0755 --dir /home/u/.local/state/rukh",
        "--perms 0755 --dir /home/u/.local/state/rukh/store",
        "--ro-bind /opt/node/bin/node /opt/node/bin/node --ro-bind /opt/rukh/ipc /opt/rukh/ipc",
        "--ro-bind /home/u/.local/state/rukh/store/d1 /home/u/.local/state/rukh/store/d1",
        "--chdir /home/u/.local/state/rukh/store/d1 --",
        "/usr/bin/prlimit --data=100 --nproc=7 --nofile=8 --fsize=9 --",
        "/opt/node/bin/node --experimental-permission --disable-warning=ExperimentalWarning",
        "--allow-fs-read=/home/u/.local/state/rukh/store/d1/ --allow-fs-read=/opt/rukh/ipc/",
        "/home/u/.local/state/rukh/store/d1/bin/x.mjs a",
      ].join(" "),
    );
    expect("env" in plan && plan.env).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/u",
      TMPDIR: "/tmp",
      RUKH_IPC_FD: "3",
    });
  });

  it("runs a root host's strict command as a uid of its own, in a user namespace that can make no other", () => {
    const made = launchPlan(
      { ...req, runtime: "native", program: `${req.packageDir}/bin/t` },
      { ...env, root: true },
      "/home/u",
    );
    expect(made).toMatchObject({ transientUid: true });
    const plan = argv(made);
    expect(plan).toMatch(
      /^\/usr\/bin\/bwrap --unshare-pid --unshare-net --unshare-ipc --unshare-uts --unshare-cgroup-try --cap-drop ALL --cap-add CAP_SETUID --cap-add CAP_SETGID --cap-add CAP_SETPCAP /,
    );
    expect(plan).toContain(
      "-- /usr/bin/setpriv --reuid={uid} --regid={uid} --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- /usr/bin/bwrap --unshare-user --disable-userns --uid {uid} --gid {uid} --cap-drop ALL --die-with-parent --bind / / --dev-bind /dev /dev -- /usr/bin/prlimit --data=100 --nproc=7 --nofile=8 --fsize=9 -- /home/u/.local/state/rukh/store/d1/bin/t a",
    );
    // A native program needs no Node binary or runtime inside.
    expect(plan).not.toContain("/opt/node");
    // An unprivileged host's plan names no uid: the user namespace is its own.
    expect(launchPlan(req, env, "/home/u")).not.toHaveProperty("transientUid");
  });

  it("binds a configured bubblewrap outside the system directories in, for a root host's second one", () => {
    const plan = argv(
      launchPlan(req, { ...env, root: true, sandbox: { path: "/opt/bwrap/bin/bwrap" } }, "/home/u"),
    );
    expect(plan).toContain("--ro-bind /opt/bwrap/bin/bwrap /opt/bwrap/bin/bwrap");
    expect(plan).toContain("-- /opt/bwrap/bin/bwrap --unshare-user --disable-userns");
  });

  it.each([
    [
      "in a pid namespace where bubblewrap works",
      env,
      false,
      "/usr/bin/bwrap --bind / / --dev-bind /dev /dev --proc /proc --unshare-pid --die-with-parent --new-session --chdir /work -- /usr/bin/prlimit --data=100 --nproc=7 --nofile=8 --fsize=9 -- /opt/node/bin/node /p/x.mjs a",
    ],
    [
      "keeping the terminal's session for a passthrough program",
      env,
      true,
      "/usr/bin/bwrap --bind / / --dev-bind /dev /dev --proc /proc --unshare-pid --die-with-parent --chdir /work -- /usr/bin/prlimit --data=100 --nproc=7 --nofile=8 --fsize=9 -- /opt/node/bin/node /p/x.mjs a",
    ],
    [
      "in its process group, without the per-user process limit, where it does not",
      { ...env, hostPidNamespace: false },
      false,
      "/usr/bin/prlimit --data=100 --nofile=8 --fsize=9 -- /opt/node/bin/node /p/x.mjs a",
    ],
    [
      "unlimited when prlimit is missing",
      { ...env, hostPidNamespace: false, prlimit: null },
      false,
      "/opt/node/bin/node /p/x.mjs a",
    ],
  ] as const)("runs a host-trusted command %s", (_n, environment, interactive, expected) => {
    const plan = launchPlan(
      { ...req, profile: "host-trusted", program: "/p/x.mjs", interactive },
      environment,
      "/home/u",
    );
    expect(argv(plan)).toBe(expected);
    expect("env" in plan ? plan.env : undefined).toBeUndefined();
  });
});
