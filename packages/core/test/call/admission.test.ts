import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { type ExtensionDescriptor, parseDescriptor } from "@rukh/descriptor";
import type { ProfileRevision, ToolProjection } from "@rukh/profile";
import { DESCRIPTOR_PATH } from "@rukh/profile/package";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AdmissionInput,
  admit,
  checkRevision,
  plan,
  type Rejection,
  targetOf,
} from "../../src/call/_admission.js";
import type { HostBinding, InvocationRequest } from "../../src/contract/_api.js";
import type { Confinement } from "../../src/process/_confinement.js";
import type { LaunchEnvironment } from "../../src/process/_launch.js";
import { TEST_ENVIRONMENT } from "../_environment.js";
import { binding, call, cleanup, makeState } from "../_helpers.js";

let root: string;
let revisionId: string;
let revision: ProfileRevision;
let projection: ToolProjection;
const packages = new Map<string, [ExtensionDescriptor, string]>();

beforeAll(async () => {
  const made = await makeState();
  root = made.root;
  revisionId = (await made.state.activeRevisionId())!;
  revision = await made.state.readRevision(revisionId);
  projection = await made.state.projection(revisionId);
  for (const e of revision.extensions) {
    const dir = realpathSync(join(root, "store", e.digest));
    const parsed = parseDescriptor(readFileSync(join(dir, DESCRIPTOR_PATH)));
    if (!parsed.ok) throw new Error("fixture descriptor");
    packages.set(e.digest, [parsed.value, dir]);
  }
});
afterAll(() => cleanup(root));

type Over = {
  request?: Partial<InvocationRequest>;
  binding?: Partial<HostBinding>;
  /** Changes to the revision's owner configuration and extensions. */
  revision?: (r: ProfileRevision) => ProfileRevision;
  /** The development links the host's MCP calls may run. */
  devAllowed?: readonly string[];
};

/** Admission exactly as the core runs it, on inputs read once from a real installed state. */
function decide(identity: string, values: Record<string, string | number>, over: Over = {}) {
  const request = call(identity, values, over.request);
  const rev = over.revision ? over.revision(revision) : revision;
  const input: AdmissionInput = {
    request,
    binding: { ...binding(), ...over.binding },
    activeRevisionId: revisionId,
    revision: rev,
    projection,
    devAllowed: over.devAllowed ?? [],
  };
  const target = targetOf(input);
  if ("reject" in target) return target;
  const [descriptor, dir] = packages.get(target.extension.digest)!;
  return admit(input, target, descriptor, dir);
}

const reason = (d: ReturnType<typeof decide>) => ("reject" in d ? d.reject : "admitted");

const withPreset = (name: string, over: object) => (r: ProfileRevision) => ({
  ...r,
  config: {
    ...r.config,
    presets: { ...r.config.presets, [name]: { ...r.config.presets.default!, ...over } },
  },
});

const linked = (id: string) => (r: ProfileRevision) => ({
  ...r,
  extensions: r.extensions.map((e) => (e.id === id ? { ...e, dev: "/src/fx-main" } : e)),
});

const disabled = (id: string) => (r: ProfileRevision) => ({
  ...r,
  extensions: r.extensions.map((e) => (e.id === id ? { ...e, enabled: false } : e)),
});

describe("admission", () => {
  it.each<[string, string, Record<string, string | number>, Over, string]>([
    ["an exposed command with valid inputs", "fx.main/hello", { name: "Ada" }, {}, "admitted"],
    [
      "a command on the CLI",
      "fx.main/hello",
      { name: "Ada" },
      { request: { surface: "cli" } },
      "admitted",
    ],
    ["an unknown extension", "fx.nope/hello", {}, {}, "not_found"],
    ["an identity without an extension", "hello", {}, {}, "not_found"],
    ["an unknown command of a known extension", "fx.main/nope", {}, {}, "not_found"],
    [
      "an unknown tool name",
      "",
      {},
      { request: { command: { toolName: "fx_main_nope__0" } } },
      "not_found",
    ],
    ["an extension that is not exposed, over MCP", "fx.hidden/secret", {}, {}, "not_exposed"],
    [
      "an extension that is not exposed, on the CLI",
      "fx.hidden/secret",
      {},
      { request: { surface: "cli" } },
      "admitted",
    ],
    [
      "a disabled extension",
      "fx.main/hello",
      { name: "Ada" },
      { revision: disabled("fx.main") },
      "not_exposed",
    ],
    [
      "a development link over MCP, by identity, where the host does not name it",
      "fx.main/hello",
      { name: "Ada" },
      { revision: linked("fx.main") },
      "not_exposed",
    ],
    [
      "a development link over MCP where the host names it",
      "fx.main/hello",
      { name: "Ada" },
      { revision: linked("fx.main"), devAllowed: ["fx.main"] },
      "admitted",
    ],
    [
      "a development link on the CLI",
      "fx.main/hello",
      { name: "Ada" },
      { revision: linked("fx.main"), request: { surface: "cli" } },
      "admitted",
    ],
    ["a passthrough program over MCP", "fx.main/pt", {}, {}, "passthrough_cli_only"],
    [
      "a passthrough program on the CLI",
      "fx.main/pt",
      {},
      { request: { surface: "cli" } },
      "admitted",
    ],
    ["required interaction over MCP", "fx.main/interactive", {}, {}, "interaction_required"],
    ["optional interaction over MCP", "fx.main/optional", {}, {}, "admitted"],
    [
      "optional interaction on the CLI",
      "fx.main/optional",
      {},
      { request: { surface: "cli" } },
      "admitted",
    ],
    ["a missing required input", "fx.main/hello", {}, {}, "invalid_input"],
    ["an input of the wrong type", "fx.main/count", { n: "three" }, {}, "invalid_input"],
    [
      "an undefined preset",
      "fx.main/hello",
      { name: "Ada" },
      { binding: { preset: "nope" } },
      "preset_denied",
    ],
    [
      "a preset named like an Object member",
      "fx.main/hello",
      { name: "Ada" },
      { binding: { preset: "__proto__" } },
      "preset_denied",
    ],
    [
      "a preset that lists other commands",
      "fx.main/count",
      { n: 1 },
      { binding: { preset: "narrow" } },
      "preset_denied",
    ],
    [
      "a preset that lists exactly this command",
      "fx.main/hello",
      { name: "Ada" },
      { binding: { preset: "narrow" } },
      "admitted",
    ],
    ["an action the preset does not grant", "fx.main/greedy", {}, {}, "preset_denied"],
    [
      "an action the preset does not grant, with invalid inputs: the preset decides first",
      "fx.main/greedy",
      { surplus: 1 },
      {},
      "preset_denied",
    ],
    [
      "an action the preset grants",
      "fx.main/greedy",
      {},
      { revision: withPreset("default", { actions: ["net.connect"] }) },
      "admitted",
    ],
  ])("%s → %s", (_name, identity, values, over, expected) => {
    expect(reason(decide(identity, values, over))).toBe(expected);
  });

  it("names the command in every rejection after the command is found, and never before", () => {
    expect(decide("fx.nope/hello", {})).not.toHaveProperty("identity");
    expect(decide("fx.main/nope", {})).not.toHaveProperty("identity");
    for (const [id, over] of [
      ["fx.main/pt", {}],
      ["fx.main/hello", { binding: { preset: "nope" } }],
      ["fx.main/greedy", {}],
    ] as const)
      expect(decide(id, {}, over)).toMatchObject({ identity: id, revisionId });
  });

  it("gives the input issues of an invalid call", () => {
    const d = decide("fx.main/hello", {}) as Rejection;
    expect(d.issues?.map((i) => i.code)).toEqual(["missing_required"]);
  });

  it("takes the preset's limits over the defaults and the owner's result limit", () => {
    const d = decide(
      "fx.main/hello",
      { name: "Ada" },
      {
        revision: (r) => ({
          ...withPreset("default", { limits: { processes: 9 } })(r),
          config: {
            ...withPreset("default", { limits: { processes: 9 } })(r).config,
            limits: { maxCommandResultBytes: 4096, maxResultValidationMs: 20 },
          },
        }),
      },
    );
    expect(d).toMatchObject({
      limits: { processes: 9, openFiles: 1024 },
      resultMaxBytes: 4096,
      resultValidationMaxMs: 20,
    });
  });

  it("rejects a request resolved in another revision, and everything when nothing is installed", () => {
    expect(
      checkRevision(call("fx.main/hello", {}, { revisionId: "0".repeat(64) }), revisionId),
    ).toMatchObject({ reject: "obsolete_revision" });
    expect(checkRevision(call("fx.main/hello"), null)).toMatchObject({ reject: "not_found" });
    expect(checkRevision(call("fx.main/hello", {}, { revisionId }), revisionId)).toBeNull();
  });
});

const environment: LaunchEnvironment = { ...TEST_ENVIRONMENT, hostPidNamespace: false };
const confinement = (over: Partial<Confinement> = {}): Confinement => ({
  environment,
  strictUnavailable: null,
  hostTreeFallback: null,
  ...over,
});

describe("launch planning of an admitted call", () => {
  it("refuses strict enforcement where the machine cannot confine, naming why", () => {
    const d = decide("fx.main/hello", { name: "Ada" }, { binding: { preset: "strict" } });
    if ("reject" in d) throw new Error(d.message);
    const refused = plan(
      d,
      call("fx.main/hello"),
      confinement({ strictUnavailable: "no userns" }),
      "/",
    );
    expect(refused).toMatchObject({
      reject: "enforcement_unavailable",
      identity: "fx.main/hello",
      message: "the strict enforcement profile is not available here: no userns",
    });
    const planned = plan(d, call("fx.main/hello"), confinement(), "/");
    expect(planned).toMatchObject({ plan: { program: "/usr/bin/bwrap" }, watchdogShell: null });
  });

  it("never puts an input value on a managed command's command line or in its environment, under either profile", () => {
    const value = "Ada; rm -rf / #$(touch /tmp/pwned)";
    for (const preset of ["default", "strict"]) {
      const d = decide("fx.main/hello", { name: value }, { binding: { preset } });
      if ("reject" in d) throw new Error(d.message);
      const planned = plan(d, call("fx.main/hello", { name: value }), confinement(), "/");
      if ("reject" in planned) throw new Error(planned.message);
      const seen = [
        planned.plan.program,
        ...planned.plan.args,
        ...Object.values(planned.plan.env ?? {}),
      ];
      expect(seen.length, preset).toBeGreaterThan(1);
      for (const word of seen) {
        expect(word).not.toContain("Ada");
        expect(word).not.toContain("pwned");
      }
      // The value travels typed, over the channel, as admission validated it.
      expect(d.validated.values).toEqual({ name: value });
    }
  });

  it("gives a host-trusted call without a pid namespace its watchdog shell", () => {
    const d = decide("fx.main/hello", { name: "Ada" });
    if ("reject" in d) throw new Error(d.message);
    expect(plan(d, call("fx.main/hello"), confinement(), "/")).toMatchObject({
      plan: { tree: "process-group" },
      watchdogShell: "/bin/sh",
    });
  });
});
