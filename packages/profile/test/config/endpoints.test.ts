import { describe, expect, it } from "vitest";
import { httpListen, validateOwnerConfig } from "../../src/config.js";
import {
  listTools,
  mcpEndpoint,
  type OwnerConfig,
  type ProfileError,
  StateDirectory,
  TOOL_NAME_MAX_LENGTH,
  visibleTools,
} from "../../src/index.js";
import { checkToolSizes, indexedTool } from "../../src/projection/_tool-projection.js";
import { clientFitName, toolName } from "../../src/projection.js";
import { makePackage, ownerConfig, tempDir, textTool, thrown } from "../_helpers.js";

// MCP endpoints in the owner configuration: what is accepted, what each
// endpoint resolves to, and the tools a projection names under an
// endpoint's naming.
const work = tempDir();

const withEndpoints = (endpoints: unknown, mcp: object = {}) =>
  ownerConfig({ mcp: { ...mcp, endpoints } });

describe("owner configuration: an endpoint's http", () => {
  const http = (over: object = {}, auth: object = {}) => ({
    resource: "https://mcp.acme.test/mcp",
    auth: { issuer: "https://login.acme.test", ...auth },
    ...over,
  });
  it("accepts a served endpoint and resolves it with its listening address", () => {
    const config = withEndpoints({
      team: {
        preset: "default",
        http: http(
          {
            listen: "0.0.0.0:9000",
            allowedHosts: ["mcp.internal:9000"],
            allowedOrigins: ["https://app.acme.test"],
          },
          {
            requiredScopes: ["mcp"],
            presets: [{ scope: "mcp.narrow", preset: "narrow" }],
            clockToleranceSeconds: 10,
            introspection: {
              clientId: "mcp-gateway",
              clientSecretEnv: "ACME_INTROSPECTION_SECRET",
              cacheSeconds: 0,
            },
          },
        ),
      },
      local: { preset: "default", http: http({ resource: "http://127.0.0.1:7000/mcp" }) },
    });
    const ok = validateOwnerConfig(config as never);
    expect(ok.ok, JSON.stringify(ok)).toBe(true);
    const team = mcpEndpoint(config as unknown as OwnerConfig, "team")!;
    expect(team.http?.auth.issuer).toBe("https://login.acme.test");
    expect(httpListen(team.http!)).toEqual({ host: "0.0.0.0", port: 9000 });
    expect(httpListen(mcpEndpoint(config as unknown as OwnerConfig, "local")!.http!)).toEqual({
      host: "127.0.0.1",
      port: 7000,
    });
    expect(
      httpListen({ resource: "https://mcp.acme.test/mcp", auth: { issuer: "https://x.test" } }),
    ).toEqual({
      host: "127.0.0.1",
      port: 8080,
    });
  });

  it("refuses what would serve the wrong people or nobody, by pointer", () => {
    const bad = validateOwnerConfig(
      withEndpoints({
        plain: { preset: "default", http: http({ resource: "http://mcp.acme.test/mcp" }) },
        query: { preset: "default", http: http({ resource: "https://mcp.acme.test/mcp?x=1" }) },
        noauth: { preset: "default", http: { resource: "https://mcp.acme.test/mcp" } },
        port: { preset: "default", http: http({ listen: "localhost:99999" }) },
        ghost: {
          preset: "default",
          http: http({}, { presets: [{ scope: "mcp.x", preset: "nope" }] }),
        },
        scope: { preset: "default", http: http({}, { requiredScopes: ["a b"] }) },
        origin: {
          preset: "default",
          http: http({ allowedOrigins: ["https://app.acme.test/path"] }),
        },
        skew: { preset: "default", http: http({}, { clockToleranceSeconds: 3600, extra: 1 }) },
        // A secret pasted where its variable's name belongs, and an introspection endpoint over http.
        secret: {
          preset: "default",
          http: http(
            {},
            {
              introspection: {
                clientId: "mcp-gateway",
                clientSecretEnv: "s3cr3t-value",
                endpoint: "http://login.acme.test/introspect",
                cacheSeconds: 900,
              },
            },
          ),
        },
        anon: { preset: "default", http: http({}, { introspection: { clientSecretEnv: "X" } }) },
      }) as never,
    );
    expect(bad.ok).toBe(false);
    const issues = bad.ok ? [] : bad.issues.map((i) => [i.path, i.code]);
    expect(issues).toEqual([
      ["/mcp/endpoints/plain/http/resource", "invalid_value"],
      ["/mcp/endpoints/query/http/resource", "invalid_value"],
      ["/mcp/endpoints/noauth/http/auth", "missing_member"],
      ["/mcp/endpoints/port/http/listen", "invalid_value"],
      ["/mcp/endpoints/ghost/http/auth/presets/0/preset", "unknown_preset"],
      ["/mcp/endpoints/scope/http/auth/requiredScopes/0", "invalid_value"],
      ["/mcp/endpoints/origin/http/allowedOrigins/0", "invalid_value"],
      ["/mcp/endpoints/skew/http/auth/extra", "unknown_member"],
      ["/mcp/endpoints/skew/http/auth/clockToleranceSeconds", "invalid_value"],
      ["/mcp/endpoints/secret/http/auth/introspection/endpoint", "invalid_value"],
      ["/mcp/endpoints/secret/http/auth/introspection/clientSecretEnv", "invalid_value"],
      ["/mcp/endpoints/secret/http/auth/introspection/cacheSeconds", "invalid_value"],
      ["/mcp/endpoints/anon/http/auth/introspection/clientId", "missing_member"],
    ]);
    expect(bad.ok ? "" : bad.issues[0]!.message).toBe(
      '"http://mcp.acme.test/mcp" must be https (plain http only on this machine)',
    );
  });
});

describe("owner configuration: mcp.endpoints", () => {
  it("accepts endpoints that tighten, and reports each wrong member by its pointer", () => {
    const ok = validateOwnerConfig(
      withEndpoints({
        claude: { preset: "narrow", toolNames: "compact" },
        ci: {
          preset: "default",
          namespace: "acme-ci",
          deadlineMs: 500,
          limits: { messageMaxBytes: 65_536, pendingMaxRequests: 8 },
        },
      }) as never,
    );
    expect(ok.ok, JSON.stringify(ok)).toBe(true);

    const bad = validateOwnerConfig(
      withEndpoints({
        Upper: { preset: "default" },
        none: {},
        ghost: { preset: "nope" },
        slow: { preset: "default", deadlineMs: 1001 },
        loose: {
          preset: "default",
          limits: { messageMaxBytes: 1_048_577, nodes: 1, ioDeadlineMs: 0 },
        },
        odd: { preset: "default", toolNames: "short", namespace: "bad ns", extra: true },
      }) as never,
    );
    expect(bad.ok).toBe(false);
    const issues = bad.ok ? [] : bad.issues.map((i) => [i.path, i.code]);
    expect(issues).toEqual(
      expect.arrayContaining([
        ["/mcp/endpoints/Upper", "invalid_name"],
        ["/mcp/endpoints/none/preset", "missing_member"],
        ["/mcp/endpoints/ghost/preset", "unknown_preset"],
        ["/mcp/endpoints/slow/deadlineMs", "limit_not_tighter"],
        ["/mcp/endpoints/loose/limits/messageMaxBytes", "limit_not_tighter"],
        ["/mcp/endpoints/loose/limits/nodes", "unknown_member"],
        ["/mcp/endpoints/loose/limits/ioDeadlineMs", "expected_integer"],
        ["/mcp/endpoints/odd/toolNames", "invalid_value"],
        ["/mcp/endpoints/odd/namespace", "invalid_name"],
        ["/mcp/endpoints/odd/extra", "unknown_member"],
      ]),
    );
    expect(issues).toHaveLength(10);
    // `mcp.toolNames` alone is no longer required.
    expect(validateOwnerConfig(ownerConfig({ mcp: {} }) as never).ok).toBe(true);
  });

  it("resolves an endpoint with the profile's defaults, and the default endpoint to the confined preset", () => {
    const config = withEndpoints(
      { claude: { preset: "narrow", toolNames: "compact", deadlineMs: 200 } },
      { toolNames: "full" },
    ) as unknown as OwnerConfig;
    expect(mcpEndpoint(config, "claude")).toEqual({
      name: "claude",
      preset: "narrow",
      naming: { namespace: "acme-test", style: "compact" },
      deadlineMs: 200,
      limits: {},
      devExtensions: [],
    });
    expect(mcpEndpoint(config)).toEqual({
      name: "default",
      preset: "agent",
      naming: { namespace: "acme-test", style: "full" },
      limits: {},
      devExtensions: [],
    });
    // Names are data: an Object member is no endpoint.
    expect(mcpEndpoint(config, "constructor")).toBeUndefined();
    expect(mcpEndpoint(config, "nope")).toBeUndefined();
    // The implicit default endpoint can be named too.
    expect(mcpEndpoint(config, "default")).toEqual(mcpEndpoint(config));
    const owned = withEndpoints({ default: { preset: "default" } }) as unknown as OwnerConfig;
    expect(mcpEndpoint(owned)?.preset).toBe("default");
  });
});

describe("a projection under an endpoint's naming", () => {
  it("names every tool with the endpoint's namespace and form, apart from the profile's names and cursors", async () => {
    const home = new StateDirectory(tempDir("rukh-endpoints-"));
    await home.setConfig(
      withEndpoints({
        short: { preset: "default", toolNames: "compact" },
        other: { preset: "default", namespace: "acme-other" },
      }) as never,
    );
    const commands = Array.from({ length: 40 }, (_, i) => ({
      id: `c${i}`,
      path: [`c${i}`],
      summary: `Command ${i}`,
      inputs: [],
      ...textTool(),
    }));
    const source = await makePackage(work, {
      format: "rukh.extension/2",
      id: "acme.files",
      version: "1.0.0",
      publisher: "acme",
      commands,
    });
    const { revisionId: rid } = await home.install(source);
    const own = await home.projection(rid);
    const short = await home.projection(rid, { namespace: "acme-test", style: "compact" });
    const other = await home.projection(rid, { namespace: "acme-other", style: "full" });
    // Asked again, the same objects: each naming is cached apart.
    expect(await home.projection(rid, { namespace: "acme-test", style: "compact" })).toBe(short);
    expect(await home.projection(rid)).toBe(own);
    expect(await home.projection(rid, { namespace: "acme-test", style: "full" })).toBe(own);

    const identities = (p: typeof own) =>
      visibleTools(p, "default")
        .map((t) => t.identity)
        .sort();
    expect(identities(short)).toEqual(identities(own));
    expect(identities(other)).toEqual(identities(own));
    const { sequence } = await home.readRevision(rid);
    for (const t of visibleTools(short, "default")) {
      expect(t.name).toBe(
        clientFitName({
          namespace: "acme-test",
          revisionId: rid,
          sequence,
          identity: t.identity,
          digits: 4,
        }),
      );
      expect(t.name.length).toBeLessThanOrEqual(TOOL_NAME_MAX_LENGTH.compact);
    }
    for (const t of visibleTools(other, "default"))
      expect(t.name).toBe(toolName("acme-other", rid, t.identity));
    const ownNames = new Set(own.tools.map((t) => t.name));
    expect(other.tools.some((t) => ownNames.has(t.name))).toBe(false);

    // A cursor minted under one naming is stale under every other.
    const cursorKey = await home.cursorKey();
    const first = listTools(own, { preset: "default", cursorKey });
    expect(first.nextCursor).toBeDefined();
    for (const p of [short, other]) {
      const caught = thrown(() =>
        listTools(p, { preset: "default", cursorKey, cursor: first.nextCursor! }),
      );
      expect((caught as ProfileError).code).toBe("stale_cursor");
    }
  });

  it("checks at publication that every tool fits a page under the longest naming any endpoint uses", () => {
    const command = (length: number) => ({
      identity: "acme.files/huge",
      id: "huge",
      path: ["huge"],
      aliases: [],
      summary: "Huge",
      description: "d".repeat(length),
      inputs: [],
      requests: { actions: [], resources: [] },
      ...textTool(),
    });
    const check = (config: object, length: number) => {
      const c = command(length);
      checkToolSizes(config as never, [indexedTool(c as never)], () => c as never);
    };
    const compact = ownerConfig({ mcp: { toolNames: "compact" } });
    // The longest description that fits under compact names alone.
    let lo = 0;
    let hi = 1_048_576;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      try {
        check(compact, mid);
        lo = mid;
      } catch {
        hi = mid - 1;
      }
    }
    expect(lo).toBeGreaterThan(1_000_000);
    const withFull = ownerConfig({
      mcp: { toolNames: "compact", endpoints: { wide: { preset: "default", toolNames: "full" } } },
    });
    const caught = thrown(() => check(withFull, lo));
    expect((caught as ProfileError).code).toBe("tool_too_large");
  });
});

describe("owner configuration: an endpoint's instructions", () => {
  it("accepts up to 2,048 characters, counted as code points, and resolves them", () => {
    // 2,048 astral characters are 4,096 UTF-16 units: still within the bound.
    const text = "🦜".repeat(2_048);
    const config = withEndpoints({ agents: { preset: "default", instructions: text } });
    const ok = validateOwnerConfig(config as never);
    expect(ok.ok, JSON.stringify(ok)).toBe(true);
    expect(mcpEndpoint(config as unknown as OwnerConfig, "agents")!.instructions).toBe(text);
    expect(
      mcpEndpoint(withEndpoints({ x: { preset: "default" } }) as never, "x")!.instructions,
    ).toBeUndefined();
  });

  it("refuses a longer, empty or non-string text by pointer, saying what is expected", () => {
    const bad = validateOwnerConfig(
      withEndpoints({
        long: { preset: "default", instructions: "x".repeat(2_049) },
        empty: { preset: "default", instructions: "" },
        number: { preset: "default", instructions: 7 },
      }) as never,
    );
    expect(bad.ok).toBe(false);
    const issues = bad.ok ? [] : bad.issues;
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ["/mcp/endpoints/long/instructions", "invalid_value"],
      ["/mcp/endpoints/empty/instructions", "invalid_value"],
      ["/mcp/endpoints/number/instructions", "expected_string"],
    ]);
    expect(issues[0]!.message).toBe(
      "instructions have 2049 characters; expected at most 2048 (clients cut longer ones)",
    );
  });
});
