// The HTTP side of an MCP endpoint (`mcp.endpoints.<name>.http`): the URL it
// is reached at, where it listens, the hosts and browser origins it answers,
// and the authorization server whose tokens it takes and how a token's
// scopes choose its preset. An endpoint without it is never served over HTTP.

import { type JsonValue, pointerAppend } from "@rukh/json";
import type { McpHttpConfig } from "../model/index.js";
import { NAME, type OwnerConfigChecker } from "./_config-checker.js";

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;
const CLIENT_ID = /^[\x20-\x7e]{1,256}$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253}):([1-9][0-9]{0,4})$/;
const HOST = /^(\[[0-9a-fA-F:.]+\]|[a-z0-9.-]{1,253})(:[1-9][0-9]{0,4})?$/;

/** A URL without query or fragment, http(s); `https` unless the host is this machine. */
function url(
  c: OwnerConfigChecker,
  path: string,
  v: JsonValue | undefined,
  what: string,
): URL | undefined {
  if (typeof v !== "string") {
    c.add(path, "expected_string", `expected a string (${what})`);
    return undefined;
  }
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    c.add(path, "invalid_value", `"${v}" is not a URL (${what})`);
    return undefined;
  }
  if (u.search !== "" || u.hash !== "" || u.username !== "" || u.password !== "") {
    c.add(path, "invalid_value", `"${v}" must have no query, fragment or credentials`);
    return undefined;
  }
  const local = ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname);
  if (u.protocol !== "https:" && !(u.protocol === "http:" && local)) {
    c.add(path, "invalid_value", `"${v}" must be https (plain http only on this machine)`);
    return undefined;
  }
  return u;
}

/** Checks `path` (an endpoint's `http`) against the configuration's `presets`. */
export function checkHttpEndpoint(
  c: OwnerConfigChecker,
  path: string,
  value: JsonValue,
  isPreset: (name: string) => boolean,
): void {
  const h = c.object(
    path,
    value,
    ["resource", "auth"],
    ["listen", "allowedHosts", "allowedOrigins"],
  );
  if (h === undefined) return;
  url(c, `${path}/resource`, h.resource, "the endpoint's URL");
  if (h.listen !== undefined) {
    if (typeof h.listen !== "string" || parseListen(h.listen) === undefined)
      c.add(`${path}/listen`, "invalid_value", 'expected "host:port", e.g. "127.0.0.1:8080"');
  }
  if (h.allowedHosts !== undefined)
    c.strings(`${path}/allowedHosts`, h.allowedHosts, {
      test: (s) => HOST.test(s),
      code: "invalid_value",
      expected: "a host or host:port in lower case",
    });
  if (h.allowedOrigins !== undefined)
    c.strings(`${path}/allowedOrigins`, h.allowedOrigins, {
      test: (s) => {
        try {
          return new URL(s).origin === s;
        } catch {
          return false;
        }
      },
      code: "invalid_value",
      expected: "an origin (scheme://host[:port])",
    });
  if (h.auth === undefined) return;
  const a = c.object(
    `${path}/auth`,
    h.auth,
    ["issuer"],
    ["jwksUri", "requiredScopes", "presets", "clockToleranceSeconds", "introspection"],
  );
  if (a === undefined) return;
  url(c, `${path}/auth/issuer`, a.issuer, "the issuer identifier");
  if (a.jwksUri !== undefined) url(c, `${path}/auth/jwksUri`, a.jwksUri, "the issuer's key set");
  if (a.requiredScopes !== undefined)
    c.strings(`${path}/auth/requiredScopes`, a.requiredScopes, {
      test: (s) => SCOPE.test(s),
      code: "invalid_value",
      expected: "an OAuth scope",
    });
  if (a.clockToleranceSeconds !== undefined) {
    const t = a.clockToleranceSeconds;
    if (typeof t !== "number" || !Number.isInteger(t) || t < 0 || t > 300)
      c.add(
        `${path}/auth/clockToleranceSeconds`,
        "invalid_value",
        "expected an integer from 0 to 300",
      );
  }
  if (a.introspection !== undefined)
    checkIntrospection(c, `${path}/auth/introspection`, a.introspection);
  if (a.presets === undefined) return;
  if (!Array.isArray(a.presets)) {
    c.add(`${path}/auth/presets`, "expected_array", "expected an array of { scope, preset }");
    return;
  }
  a.presets.forEach((entry, i) => {
    const p = pointerAppend(`${path}/auth/presets`, i);
    const e = c.object(p, entry, ["scope", "preset"], []);
    if (e === undefined) return;
    c.string(`${p}/scope`, e.scope, {
      pattern: SCOPE,
      code: "invalid_value",
      expected: "an OAuth scope",
    });
    const name = c.string(`${p}/preset`, e.preset, {
      pattern: NAME,
      code: "invalid_name",
      expected: "a preset name",
    });
    if (name !== undefined && !isPreset(name))
      c.add(`${p}/preset`, "unknown_preset", `preset "${name}" is not defined in /presets`);
  });
}

function checkIntrospection(c: OwnerConfigChecker, path: string, value: JsonValue): void {
  const i = c.object(path, value, ["clientId", "clientSecretEnv"], ["endpoint", "cacheSeconds"]);
  if (i === undefined) return;
  if (i.endpoint !== undefined)
    url(c, `${path}/endpoint`, i.endpoint, "the introspection endpoint");
  // A missing member is reported once, as missing.
  if (i.clientId !== undefined)
    c.string(`${path}/clientId`, i.clientId, {
      pattern: CLIENT_ID,
      code: "invalid_value",
      expected: "a client id",
    });
  if (i.clientSecretEnv !== undefined)
    c.string(`${path}/clientSecretEnv`, i.clientSecretEnv, {
      pattern: ENV_NAME,
      code: "invalid_value",
      expected: "the name of an environment variable (A-Z, 0-9, _), not the secret itself",
    });
  if (i.cacheSeconds !== undefined) {
    const t = i.cacheSeconds;
    if (typeof t !== "number" || !Number.isInteger(t) || t < 0 || t > 300)
      c.add(`${path}/cacheSeconds`, "invalid_value", "expected an integer from 0 to 300");
  }
}

/** Where an HTTP endpoint listens: its `listen`, else this machine at the resource's port. */
export function httpListen(h: McpHttpConfig): { host: string; port: number } {
  return parseListen(h.listen ?? `127.0.0.1:${new URL(h.resource).port || "8080"}`)!;
}

/**
 * `host:port` (an IPv6 host in brackets) as a listening address, or
 * `undefined` when it is not one.
 *
 * @example
 * parseListen("[::1]:8080"); // { host: "::1", port: 8080 }
 */
export function parseListen(text: string): { host: string; port: number } | undefined {
  const m = HOST_PORT.exec(text);
  if (m === null || Number(m[2]) > 65_535) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port: Number(m[2]) };
}
