import { describe, expect, it } from "vitest";
import { parseOwnerConfig, validateOwnerConfig } from "../../src/config.js";
import { FIXTURE_PUB, ownerConfig } from "../_helpers.js";

const preset = {
  commands: [],
  actions: [],
  resources: [],
  deadlineMs: 10,
  maxConcurrency: 1,
  enforcement: "strict",
};

describe("validateOwnerConfig", () => {
  it("accepts a complete configuration", () => {
    const r = validateOwnerConfig(
      ownerConfig({ limits: { maxConcurrency: 4 }, mcp: { toolNames: "compact" } }) as never,
    );
    expect(r.ok).toBe(true);
  });

  it.each([
    ["not an object", [], "", "expected_object"],
    ["missing brand", ownerConfig({ brand: undefined }), "/brand", "missing_member"],
    ["unknown member", ownerConfig({ extra: 1 }), "/extra", "unknown_member"],
    ["uppercase brand", ownerConfig({ brand: "Acme" }), "/brand", "invalid_name"],
    [
      "bad namespace",
      ownerConfig({ endpointNamespace: "a b" }),
      "/endpointNamespace",
      "invalid_name",
    ],
    [
      "publishers not array",
      ownerConfig({ trustedPublishers: {} }),
      "/trustedPublishers",
      "expected_array",
    ],
    [
      "bad public key",
      ownerConfig({ trustedPublishers: [{ id: "acme", publicKey: "abc" }] }),
      "/trustedPublishers/0/publicKey",
      "invalid_public_key",
    ],
    [
      "duplicate publisher",
      ownerConfig({
        trustedPublishers: [
          { id: "acme", publicKey: FIXTURE_PUB },
          { id: "acme", publicKey: FIXTURE_PUB },
        ],
      }),
      "/trustedPublishers/1/id",
      "duplicate",
    ],
    [
      "publisher extra key",
      ownerConfig({ trustedPublishers: [{ id: "acme", publicKey: FIXTURE_PUB, x: 1 }] }),
      "/trustedPublishers/0/x",
      "unknown_member",
    ],
    [
      "bad exposure identity",
      ownerConfig({ exposure: { commands: ["nope"] } }),
      "/exposure/commands/0",
      "invalid_identity",
    ],
    [
      "bad exposure extension",
      ownerConfig({ exposure: { extensions: ["Bad"] } }),
      "/exposure/extensions/0",
      "invalid_identity",
    ],
    [
      "duplicate exposure",
      ownerConfig({ exposure: { commands: ["a.b/c", "a.b/c"] } }),
      "/exposure/commands/1",
      "duplicate",
    ],
    [
      "unknown default preset",
      ownerConfig({ defaultPreset: "missing" }),
      "/defaultPreset",
      "unknown_preset",
    ],
    [
      "bad preset name",
      ownerConfig({ presets: { Bad: preset }, defaultPreset: "default" }),
      "/presets/Bad",
      "invalid_name",
    ],
    [
      "preset missing member",
      ownerConfig({ presets: { default: { ...preset, enforcement: undefined } } }),
      "/presets/default/enforcement",
      "missing_member",
    ],
    [
      "preset bad enforcement",
      ownerConfig({ presets: { default: { ...preset, enforcement: "lax" } } }),
      "/presets/default/enforcement",
      "invalid_value",
    ],
    [
      "preset bad pattern",
      ownerConfig({ presets: { default: { ...preset, commands: ["acme/*/x"] } } }),
      "/presets/default/commands/0",
      "invalid_identity",
    ],
    [
      "preset deadline too large",
      ownerConfig({ presets: { default: { ...preset, deadlineMs: 10_000_000 } } }),
      "/presets/default/deadlineMs",
      "limit_not_tighter",
    ],
    [
      "preset concurrency above owner limit",
      ownerConfig({
        limits: { maxConcurrency: 2 },
        presets: { default: { ...preset, maxConcurrency: 3 } },
      }),
      "/presets/default/maxConcurrency",
      "limit_not_tighter",
    ],
    [
      "preset concurrency zero",
      ownerConfig({ presets: { default: { ...preset, maxConcurrency: 0 } } }),
      "/presets/default/maxConcurrency",
      "expected_integer",
    ],
    [
      "limit larger than default",
      ownerConfig({ limits: { maxPackageBytes: 1e12 } }),
      "/limits/maxPackageBytes",
      "limit_not_tighter",
    ],
    [
      "agent consent on a strict preset",
      ownerConfig({
        presets: { default: { ...preset, enforcement: "strict", agentConsent: "anything" } },
      }),
      "/presets/default/agentConsent",
      "invalid_value",
    ],
    [
      "agent consent that says nothing",
      ownerConfig({
        presets: { default: { ...preset, enforcement: "host-trusted", agentConsent: "  " } },
      }),
      "/presets/default/agentConsent",
      "invalid_value",
    ],
    [
      "result validation bound above the default",
      ownerConfig({ limits: { maxResultValidationMs: 101 } }),
      "/limits/maxResultValidationMs",
      "limit_not_tighter",
    ],
    [
      "result validation bound zero",
      ownerConfig({ limits: { maxResultValidationMs: 0 } }),
      "/limits/maxResultValidationMs",
      "expected_integer",
    ],
    [
      "unknown limit",
      ownerConfig({ limits: { maxWidgets: 1 } }),
      "/limits/maxWidgets",
      "unknown_member",
    ],
    [
      "bad tool names",
      ownerConfig({ mcp: { toolNames: "short" } }),
      "/mcp/toolNames",
      "invalid_value",
    ],
    [
      "strict uids among the accounts",
      ownerConfig({ sandbox: { uids: { first: 1000, count: 10 } } }),
      "/sandbox/uids/first",
      "invalid_value",
    ],
    [
      "strict uids past 2^31",
      ownerConfig({ sandbox: { uids: { first: 2_147_483_000, count: 1_000 } } }),
      "/sandbox/uids/count",
      "invalid_value",
    ],
    [
      "strict uids without a count",
      ownerConfig({ sandbox: { uids: { first: 100_000 } } }),
      "/sandbox/uids/count",
      "missing_member",
    ],
    [
      "strict uids counted in fractions",
      ownerConfig({ sandbox: { uids: { first: 100_000, count: 1.5 } } }),
      "/sandbox/uids/count",
      "expected_integer",
    ],
    [
      "unknown sandbox member",
      ownerConfig({ sandbox: { uid: 5 } }),
      "/sandbox/uid",
      "unknown_member",
    ],
    [
      "a relative journal directory",
      ownerConfig({ journal: { dir: "var/journal" } }),
      "/journal/dir",
      "invalid_value",
    ],
    [
      "a journal directory with ..",
      ownerConfig({ journal: { dir: "/srv/../etc" } }),
      "/journal/dir",
      "invalid_value",
    ],
    [
      "a journal directory that is no string",
      ownerConfig({ journal: { dir: 7 } }),
      "/journal/dir",
      "invalid_value",
    ],
  ])("%s", (_name, value, path, code) => {
    const r = validateOwnerConfig(JSON.parse(JSON.stringify(value)));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toContainEqual(expect.objectContaining({ path, code }));
  });

  it.each([
    [{ uids: { first: 65_536, count: 1 } }],
    [{ uids: { first: 1_879_048_192, count: 65_536 } }],
    [{ program: "/usr/bin/bwrap", uids: { first: 2_147_483_647, count: 1 } }],
  ])("accepts the sandbox %j", (sandbox) => {
    expect(validateOwnerConfig(ownerConfig({ sandbox }) as never).ok).toBe(true);
  });

  it.each(["/var/lib/acme-journal", "/srv/replica/journal/"])(
    "accepts the journal directory %s",
    (dir) => {
      expect(
        validateOwnerConfig(ownerConfig({ journal: { dir, maxAgeDays: 7 } }) as never).ok,
      ).toBe(true);
    },
  );

  it("answers null where an object of named members belongs with an issue at its pointer, never a crash", () => {
    const base = ownerConfig() as { presets: Record<string, Record<string, unknown>> };
    const preset = Object.keys(base.presets)[0]!;
    for (const [config, path] of [
      [{ ...base, presets: null }, "/presets"],
      [{ ...base, mcp: { endpoints: null } }, "/mcp/endpoints"],
      [
        {
          ...base,
          presets: { ...base.presets, [preset]: { ...base.presets[preset], hints: null } },
        },
        `/presets/${preset}/hints`,
      ],
    ] as const) {
      const r = parseOwnerConfig(JSON.stringify(config));
      expect(r.ok).toBe(false);
      expect(r.ok ? [] : r.issues.map((i) => [i.path, i.code])).toContainEqual([
        path,
        "expected_object",
      ]);
    }
  });

  it("reports every issue at once", () => {
    const r = validateOwnerConfig(
      JSON.parse(
        JSON.stringify(ownerConfig({ brand: "X", endpointNamespace: "", defaultPreset: "none" })),
      ),
    );
    expect(r.ok ? [] : r.issues.map((i) => i.path)).toEqual([
      "/brand",
      "/endpointNamespace",
      "/defaultPreset",
    ]);
  });

  it.each([
    ["duplicate key", '{"brand":"a","brand":"b"}'],
    ["not JSON", "{"],
  ])("parseOwnerConfig rejects %s as invalid_json", (_n, text) => {
    const r = parseOwnerConfig(text);
    expect(r.ok ? undefined : r.issues[0]?.code).toBe("invalid_json");
  });
});
