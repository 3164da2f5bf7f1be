// Each kind of change planned alone: a base, one request, and the candidate
// or the refusal. No state directory, no package on disk.
import { describe, expect, it } from "vitest";
import { validateOwnerConfig } from "../../src/config/_config.js";
import type { InstalledExtension, OwnerConfig, ProfileRevision } from "../../src/model/_model.js";
import {
  type ArrivingPackage,
  type Candidate,
  candidateOf,
  changesNothing,
  type Draft,
  draftOf,
  planChange,
  type ReadChange,
} from "../../src/publication/_plan.js";
import { ownerConfig } from "../_helpers.js";

function config(over: Record<string, unknown> = {}): OwnerConfig {
  const v = validateOwnerConfig(ownerConfig(over) as never);
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return v.value;
}

const CONFIG = config();
const D1 = "1".repeat(64);
const D2 = "2".repeat(64);

function entry(id: string, over: Partial<InstalledExtension> = {}): InstalledExtension {
  return { id, version: "1.0.0", publisher: "acme", digest: D1, enabled: true, ...over };
}

function arriving(id: string, over: Partial<ArrivingPackage["descriptor"]> = {}, digest = D2) {
  return {
    descriptor: { id, version: "1.1.0", publisher: "acme", ...over },
    digest,
    source: "/srv/packages/pkg",
  } satisfies ArrivingPackage;
}

function revision(extensions: InstalledExtension[], cfg = CONFIG): ProfileRevision {
  return {
    format: "rukh.profile/1",
    sequence: 1,
    parent: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    config: cfg,
    extensions,
    commandGeneration: 1,
  };
}

const ORIGIN = {
  registry: "https://registry.test/",
  name: "@acme/files",
  version: "1.1.0",
  integrity: "sha512-AAAA",
  spec: "latest",
};
const fromRegistry: Draft = draftOf(
  revision([entry("acme.files", { origin: { ...ORIGIN, version: "1.0.0" } })]),
);

const empty: Draft = draftOf(undefined);
const withFiles: Draft = draftOf(revision([entry("acme.files")]));
const disabledFiles: Draft = draftOf(revision([entry("acme.files", { enabled: false })]));
const linkedFiles: Draft = draftOf(revision([entry("acme.files", { dev: "/home/jane/files" })]));

function plan(draft: Draft, change: ReadChange): Draft | string {
  try {
    return planChange(draft, change);
  } catch (e) {
    return (e as { code: string }).code;
  }
}

function extensionsOf(result: Draft | string): unknown {
  return typeof result === "string" ? result : [...result.extensions.values()];
}

describe("planning one change", () => {
  it.each<[string, Draft, ReadChange, unknown]>([
    [
      "install a new extension",
      draftOf(revision([])),
      { op: "install", source: "x", pkg: arriving("acme.files") },
      [entry("acme.files", { version: "1.1.0", digest: D2 })],
    ],
    [
      "upgrade keeps the extension disabled",
      disabledFiles,
      { op: "install", source: "x", pkg: arriving("acme.files") },
      [entry("acme.files", { version: "1.1.0", digest: D2, enabled: false })],
    ],
    [
      "install before any configuration",
      empty,
      { op: "install", source: "x", pkg: arriving("acme.files") },
      "no_active_revision",
    ],
    [
      "install over a development link",
      linkedFiles,
      { op: "install", source: "x", pkg: arriving("acme.files") },
      "extension_conflict",
    ],
    [
      "install from an untrusted publisher",
      withFiles,
      { op: "install", source: "x", pkg: arriving("evil.files", { publisher: "evil" }) },
      "untrusted_publisher",
    ],
    [
      "downgrade without leave",
      withFiles,
      { op: "install", source: "x", pkg: arriving("acme.files", { version: "0.9.0" }) },
      "downgrade",
    ],
    [
      "downgrade with leave",
      withFiles,
      {
        op: "install",
        source: "x",
        allowDowngrade: true,
        pkg: arriving("acme.files", { version: "0.9.0" }),
      },
      [entry("acme.files", { version: "0.9.0", digest: D2 })],
    ],
    [
      "same version, other content",
      withFiles,
      { op: "install", source: "x", pkg: arriving("acme.files", { version: "1.0.0" }) },
      "version_reused",
    ],
    [
      "same version, other content, even with leave to downgrade",
      withFiles,
      {
        op: "install",
        source: "x",
        allowDowngrade: true,
        pkg: arriving("acme.files", { version: "1.0.0" }),
      },
      "version_reused",
    ],
    [
      "same precedence, other build metadata and content (a rebuild)",
      withFiles,
      { op: "install", source: "x", pkg: arriving("acme.files", { version: "1.0.0+rebuild" }) },
      "version_reused",
    ],
    [
      "a rebuild of the installed build back to the plain version",
      draftOf(revision([entry("acme.files", { version: "1.0.0+rebuild" })])),
      { op: "install", source: "x", pkg: arriving("acme.files", { version: "1.0.0" }) },
      "version_reused",
    ],
    [
      "a rebuild with leave to downgrade",
      withFiles,
      {
        op: "install",
        source: "x",
        allowDowngrade: true,
        pkg: arriving("acme.files", { version: "1.0.0+rebuild" }),
      },
      [entry("acme.files", { version: "1.0.0+rebuild", digest: D2 })],
    ],
    [
      "install from a registry records where it came from",
      draftOf(revision([])),
      { op: "install", source: "x", origin: ORIGIN, pkg: arriving("acme.files") },
      [entry("acme.files", { version: "1.1.0", digest: D2, origin: ORIGIN })],
    ],
    [
      "upgrade from a registry replaces the origin",
      fromRegistry,
      { op: "install", source: "x", origin: ORIGIN, pkg: arriving("acme.files") },
      [entry("acme.files", { version: "1.1.0", digest: D2, origin: ORIGIN })],
    ],
    [
      "upgrade from a file drops the origin",
      fromRegistry,
      { op: "install", source: "x", pkg: arriving("acme.files") },
      [entry("acme.files", { version: "1.1.0", digest: D2 })],
    ],
    [
      "a registry downgrade is refused as a file's is",
      draftOf(revision([entry("acme.files", { version: "1.2.0", origin: ORIGIN })])),
      { op: "install", source: "x", origin: ORIGIN, pkg: arriving("acme.files") },
      "downgrade",
    ],
    [
      "a registry package from an untrusted publisher is refused as a file's is",
      withFiles,
      {
        op: "install",
        source: "x",
        origin: ORIGIN,
        pkg: arriving("evil.files", { publisher: "evil" }),
      },
      "untrusted_publisher",
    ],
    [
      "link a new extension",
      draftOf(revision([])),
      { op: "link", source: "x", pkg: { ...arriving("acme.files"), source: "/home/jane/files" } },
      [entry("acme.files", { version: "1.1.0", digest: D2, dev: "/home/jane/files" })],
    ],
    [
      "link over an installed package",
      withFiles,
      { op: "link", source: "x", pkg: arriving("acme.files") },
      "extension_conflict",
    ],
    [
      "link a directory that now declares another id",
      linkedFiles,
      { op: "link", source: "x", expectId: "acme.files", pkg: arriving("acme.more") },
      "invalid_link",
    ],
    [
      "disable",
      withFiles,
      { op: "disable", id: "acme.files" },
      [entry("acme.files", { enabled: false })],
    ],
    ["enable", disabledFiles, { op: "enable", id: "acme.files" }, [entry("acme.files")]],
    ["remove", withFiles, { op: "remove", id: "acme.files" }, []],
    [
      "remove what is not installed",
      withFiles,
      { op: "remove", id: "acme.nope" },
      "unknown_extension",
    ],
    [
      "disable what is not installed",
      empty,
      { op: "disable", id: "acme.nope" },
      "unknown_extension",
    ],
    [
      "roll back to an earlier revision",
      withFiles,
      { op: "rollback", to: "r", target: revision([entry("acme.more")]) },
      [entry("acme.more")],
    ],
  ])("%s", (_name, draft, change, expected) => {
    expect(extensionsOf(plan(draft, change))).toEqual(expected);
  });

  it.each<[string, Draft, ReadChange, unknown]>([
    ["a valid configuration", empty, { op: "setConfig", config: CONFIG }, "acme"],
    [
      "configuration bytes",
      empty,
      { op: "setConfig", config: JSON.stringify(ownerConfig({ brand: "zed" })) },
      "zed",
    ],
    ["an invalid configuration", withFiles, { op: "setConfig", config: "{" }, "invalid_config"],
    [
      "an invalid configuration object",
      withFiles,
      { op: "setConfig", config: { ...CONFIG, brand: 7 } as never },
      "invalid_config",
    ],
  ])("setConfig: %s", (_name, draft, change, expected) => {
    const result = plan(draft, change);
    expect(typeof result === "string" ? result : result.config?.brand).toBe(expected);
  });

  it.each<[string, Draft, string | undefined, unknown]>([
    ["a new extension's preset", draftOf(revision([])), "narrow", ["acme.files/a", "acme.files/*"]],
    ["an upgrade leaves the preset alone", withFiles, "narrow", ["acme.files/a"]],
    ["no preset named", draftOf(revision([])), undefined, ["acme.files/a"]],
    ["a preset that does not exist", draftOf(revision([])), "nope", "invalid_config"],
  ])("install allowIn: %s", (_name, draft, allowIn, expected) => {
    const change: ReadChange = {
      op: "install",
      source: "x",
      ...(allowIn !== undefined && { allowIn }),
      pkg: arriving("acme.files"),
    };
    const result = plan(draft, change);
    expect(typeof result === "string" ? result : result.config?.presets.narrow?.commands).toEqual(
      expected,
    );
  });

  it("a publisher's allowed sources bound where an install may come from", () => {
    const bound = draftOf(
      revision(
        [],
        config({
          trustedPublishers: [{ ...CONFIG.trustedPublishers[0], sources: ["/srv/other"] }],
        }),
      ),
    );
    expect(plan(bound, { op: "install", source: "x", pkg: arriving("acme.files") })).toBe(
      "source_denied",
    );
  });

  it("never changes the draft it is given", () => {
    const before = [...withFiles.extensions.values()];
    planChange(withFiles, { op: "remove", id: "acme.files" });
    planChange(withFiles, { op: "install", source: "x", pkg: arriving("acme.more") });
    expect([...withFiles.extensions.values()]).toEqual(before);
  });
});

describe("the candidate as a whole", () => {
  const untrusting = config({
    trustedPublishers: [],
    exposure: { extensions: [] },
    presets: {
      default: {
        commands: [],
        actions: [],
        resources: [],
        deadlineMs: 1000,
        maxConcurrency: 1,
        enforcement: "strict",
      },
    },
  });
  it.each<[string, Draft, unknown]>([
    ["no configuration", empty, "no_active_revision"],
    [
      "sorted by id",
      draftOf(revision([entry("acme.more"), entry("acme.files")])),
      ["acme.files", "acme.more"],
    ],
    [
      "an enabled extension whose publisher is no longer trusted",
      draftOf(revision([entry("acme.files")], untrusting)),
      "untrusted_publisher",
    ],
    [
      "a disabled one may outlive its publisher's trust",
      draftOf(revision([entry("acme.files", { enabled: false })], untrusting)),
      ["acme.files"],
    ],
    [
      "a development link is trusted by no one and needs no one",
      draftOf(
        revision([entry("acme.files", { dev: "/home/jane/files", publisher: "jane" })], untrusting),
      ),
      ["acme.files"],
    ],
    [
      "an extension outside its publisher's namespaces",
      draftOf(revision([entry("other.files")])),
      "namespace_denied",
    ],
  ])("%s", (_name, draft, expected) => {
    let result: unknown;
    try {
      result = candidateOf(draft).extensions.map((e) => e.id);
    } catch (e) {
      result = (e as { code: string }).code;
    }
    expect(result).toEqual(expected);
  });

  const base = revision([entry("acme.files")]);
  const same: Candidate = { config: CONFIG, extensions: [entry("acme.files")] };
  it.each<[string, Candidate, ProfileRevision | undefined, ReadChange["op"], boolean]>([
    ["the same configuration and extensions", same, base, "install", true],
    ["a rollback always publishes", same, base, "rollback", false],
    ["the first publication", same, undefined, "setConfig", false],
    [
      "another version",
      { ...same, extensions: [entry("acme.files", { digest: D2 })] },
      base,
      "install",
      false,
    ],
    [
      "disabled",
      { ...same, extensions: [entry("acme.files", { enabled: false })] },
      base,
      "disable",
      false,
    ],
    [
      "the same package, now from a registry",
      { ...same, extensions: [entry("acme.files", { origin: ORIGIN })] },
      base,
      "install",
      false,
    ],
    [
      "another configuration",
      { ...same, config: config({ brand: "zed" }) },
      base,
      "setConfig",
      false,
    ],
  ])("changes nothing: %s", (_name, candidate, baseRevision, op, expected) => {
    expect(changesNothing(candidate, baseRevision, [{ op } as never])).toBe(expected);
  });
});
