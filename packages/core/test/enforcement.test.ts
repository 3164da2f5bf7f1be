import { describe, expect, it } from "vitest";
import { type EnforcementEnvironment, ipcRuntimeDirs, launchPlan } from "../src/_enforcement.js";

const env: EnforcementEnvironment = {
  bwrap: "/usr/bin/bwrap",
  nodePermission: true,
  runtimeReadDirs: ["/opt/rukh/ipc", "/opt/rukh/json"],
};
const none: EnforcementEnvironment = { ...env, bwrap: null, nodePermission: false };

describe("launch plans", () => {
  it.each([
    ["host-trusted node", "host-trusted", "node", env, [process.execPath, "/s/p/bin/x.mjs", "a"]],
    ["host-trusted native", "host-trusted", "native", env, ["/s/p/bin/x.mjs", "a"]],
    [
      "host-trusted node without any confinement tool",
      "host-trusted",
      "node",
      none,
      [process.execPath, "/s/p/bin/x.mjs", "a"],
    ],
    [
      "strict node",
      "strict",
      "node",
      env,
      [
        process.execPath,
        "--experimental-permission",
        "--disable-warning=ExperimentalWarning",
        "--allow-fs-read=/s/p/",
        "--allow-fs-read=/opt/rukh/ipc/",
        "--allow-fs-read=/opt/rukh/json/",
        "/s/p/bin/x.mjs",
        "a",
      ],
    ],
    [
      "strict native",
      "strict",
      "native",
      env,
      [
        "/usr/bin/bwrap",
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
        "/s/p/bin/x.mjs",
        "a",
      ],
    ],
    ["strict node without the permission model", "strict", "node", none, undefined],
    ["strict native without bwrap", "strict", "native", none, undefined],
  ] as const)("%s", (_name, profile, runtime, environment, expected) => {
    const plan = launchPlan(profile, runtime, "/s/p/bin/x.mjs", "/s/p", ["a"], environment);
    expect(plan === undefined ? undefined : [plan.program, ...plan.args]).toEqual(expected);
  });

  it("finds the ipc runtime and the packages it imports", () => {
    const dirs = ipcRuntimeDirs();
    expect(dirs.some((d) => d.endsWith("/packages/ipc"))).toBe(true);
    expect(dirs.some((d) => d.endsWith("/packages/json"))).toBe(true);
  });
});
