import type { LaunchEnvironment } from "../src/process/_launch.js";

/** A machine with every helper present, for launch plans built without probing this one. */
export const TEST_ENVIRONMENT: LaunchEnvironment = {
  sandbox: { path: "/usr/bin/bwrap" },
  hostPidNamespace: true,
  prlimit: "/usr/bin/prlimit",
  setpriv: "/usr/bin/setpriv",
  shell: "/bin/sh",
  root: false,
  nodePermission: { flag: "--experimental-permission" },
  nodeBinary: "/opt/node/bin/node",
  runtimeReadDirs: ["/opt/rukh/ipc"],
  heldBootstrap: "/opt/rukh/ipc/bootstrap/held.cjs",
  systemEntries: [
    { path: "/usr", bind: true },
    { path: "/bin", bind: false, target: "usr/bin" },
  ],
  privateDirs: ["/home/u"],
};
