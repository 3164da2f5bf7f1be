import {
  PUBLISHER_ID_PATTERN as PUBLISHER,
  REQUEST_NAME_PATTERN as REQUEST,
} from "@rukh/descriptor";
import { type JsonValue, parseJson, pointerAppend, type Validation } from "@rukh/json";
import { Checker, ENDPOINT_NAMESPACE, isExtensionId, isIdentity, NAME } from "./_checker.js";
import { checkEndpoints, type McpEndpointConfig } from "./_endpoints.js";
import { CONFIG_MAX_BYTES, DEFAULT_OWNER_LIMITS, type OwnerLimits } from "./_limits.js";
import { namespacesOverlap } from "./_trust.js";

/** Stable codes of owner-configuration issues. */
export const CONFIG_ISSUE_CODES = [
  "invalid_json",
  "expected_object",
  "expected_array",
  "expected_string",
  "expected_integer",
  "missing_member",
  "unknown_member",
  "invalid_name",
  "invalid_identity",
  "invalid_public_key",
  "invalid_value",
  "duplicate",
  "unknown_preset",
  "limit_not_tighter",
] as const;
/** One of {@link CONFIG_ISSUE_CODES}. */
export type ConfigIssueCode = (typeof CONFIG_ISSUE_CODES)[number];

/** A publisher the owner trusts, with its Ed25519 public key (base64 of the 32 raw bytes). */
export interface TrustedPublisher {
  readonly id: string;
  readonly publicKey: string;
  /**
   * The extension ids it may install: `acme.*` (any id under `acme.`) or an
   * exact id. Default `<id>.*`. No two publishers' namespaces overlap.
   */
  readonly namespaces?: readonly string[];
  /**
   * Where its packages may be installed from: absolute paths of directories
   * (a package inside one, at any depth) or of package files. Unset: anywhere.
   */
  readonly sources?: readonly string[];
}

/** A task preset: which commands a task may see and use, and its bounds. */
export interface TaskPreset {
  /** Command identities, or `<extension id>/*` for every command of an extension. */
  readonly commands: readonly string[];
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly deadlineMs: number;
  readonly maxConcurrency: number;
  readonly enforcement: "host-trusted" | "strict";
  /** Per-invocation resource limits; each omitted one takes its default (see {@link PRESET_RESOURCE_DEFAULTS}). */
  readonly limits?: PresetResourceLimits;
}

/** Resource limits of every command process of a preset (kernel resource limits, per process). */
export interface PresetResourceLimits {
  readonly memoryBytes?: number;
  readonly processes?: number;
  readonly openFiles?: number;
  readonly fileSizeBytes?: number;
}

/**
 * The resource limits a preset gets for each member it omits: 1 GiB of
 * address space, 256 processes, 1,024 open files, 1 GiB per written file.
 *
 * @example
 * PRESET_RESOURCE_DEFAULTS.memoryBytes; // 1073741824
 */
export const PRESET_RESOURCE_DEFAULTS: Required<PresetResourceLimits> = Object.freeze({
  memoryBytes: 1_073_741_824,
  processes: 256,
  openFiles: 1_024,
  fileSizeBytes: 1_073_741_824,
});

/** The owner configuration: trust, exposure, presets, limits and naming. */
export interface OwnerConfig {
  readonly brand: string;
  readonly endpointNamespace: string;
  readonly trustedPublishers: readonly TrustedPublisher[];
  readonly exposure?: {
    readonly commands?: readonly string[];
    readonly extensions?: readonly string[];
  };
  readonly presets: { readonly [name: string]: TaskPreset };
  readonly defaultPreset: string;
  readonly limits?: Partial<OwnerLimits>;
  /**
   * MCP: the tool-name form of the profile's own projection (default
   * `full`), and the named endpoints `mcp serve --endpoint` binds.
   */
  readonly mcp?: {
    readonly toolNames?: "full" | "compact";
    readonly endpoints?: { readonly [name: string]: McpEndpointConfig };
  };
  /**
   * The strict sandbox: where bubblewrap is (an absolute path; default the
   * first existing of /usr/bin/bwrap, /bin/bwrap), and, for a host running
   * as root, the uids strict calls run as: each call takes one no other
   * process has while it runs (default {@link STRICT_UIDS_DEFAULT}).
   */
  readonly sandbox?: { readonly program?: string; readonly uids?: StrictUids };
  /**
   * How much invocation history the journal keeps (default 30 days and 256
   * MiB, the oldest going first), and whether start records keep the inputs
   * themselves (default no: only their digest).
   */
  readonly journal?: {
    readonly maxAgeDays?: number;
    readonly maxBytes?: number;
    readonly recordInputs?: boolean;
  };
}

const BRAND = /^[a-z][a-z0-9-]{0,31}$/;
const NAMESPACE_PATTERN = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*(\.\*)?$/;
const BASE64_32 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * The preset named `name`, or `undefined`: names are data, so one that is an
 * `Object` member (`constructor`, `__proto__`) is no preset.
 *
 * @example
 * const preset = presetNamed(config, flags.preset);
 */
export function presetNamed(config: OwnerConfig, name: string): TaskPreset | undefined {
  return Object.hasOwn(config.presets, name) ? config.presets[name] : undefined;
}

/**
 * Validates an owner configuration value. Every problem is reported with a
 * JSON pointer, a stable code and what was expected; nothing is thrown.
 *
 * @example
 * const r = validateOwnerConfig(JSON.parse(text));
 * if (!r.ok) for (const i of r.issues) console.error(`${i.path}: ${i.message}`);
 */
export function validateOwnerConfig(value: JsonValue): Validation<OwnerConfig, ConfigIssueCode> {
  const c = new Checker();
  const root = c.object(
    "",
    value,
    ["brand", "endpointNamespace", "trustedPublishers", "presets", "defaultPreset"],
    ["exposure", "limits", "mcp", "sandbox", "journal"],
  );
  if (root === undefined) return { ok: false, issues: c.issues };
  if (root.brand !== undefined)
    c.string(
      "/brand",
      root.brand,
      BRAND,
      "invalid_name",
      "a lowercase brand name ([a-z][a-z0-9-], at most 32)",
    );
  if (root.endpointNamespace !== undefined)
    c.string(
      "/endpointNamespace",
      root.endpointNamespace,
      ENDPOINT_NAMESPACE,
      "invalid_name",
      "an endpoint namespace ([A-Za-z0-9._:-], at most 128)",
    );

  if (root.trustedPublishers !== undefined) {
    if (!Array.isArray(root.trustedPublishers))
      c.add("/trustedPublishers", "expected_array", "expected an array of trusted publishers");
    else {
      const ids = new Set<string>();
      const granted: { ns: string; publisher: string; path: string }[] = [];
      root.trustedPublishers.forEach((p, i) => {
        const path = pointerAppend("/trustedPublishers", i);
        const o = c.object(path, p, ["id", "publicKey"], ["namespaces", "sources"]);
        if (o === undefined) return;
        const id =
          o.id === undefined
            ? undefined
            : c.string(`${path}/id`, o.id, PUBLISHER, "invalid_name", "a publisher id");
        if (id !== undefined) {
          if (ids.has(id)) c.add(`${path}/id`, "duplicate", `publisher "${id}" is listed twice`);
          ids.add(id);
        }
        if (o.publicKey !== undefined) {
          if (typeof o.publicKey !== "string")
            c.add(
              `${path}/publicKey`,
              "expected_string",
              "expected base64 of a 32-byte Ed25519 public key",
            );
          else if (!BASE64_32.test(o.publicKey))
            c.add(
              `${path}/publicKey`,
              "invalid_public_key",
              "expected base64 (44 characters) of a 32-byte Ed25519 public key",
            );
        }
        const namespaces =
          o.namespaces === undefined
            ? id === undefined
              ? []
              : [`${id}.*`]
            : c.strings(
                `${path}/namespaces`,
                o.namespaces,
                (s) => NAMESPACE_PATTERN.test(s) && s.length <= 256,
                "invalid_value",
                "an extension id, or one followed by .* for every id under it",
              );
        // One owner per extension id: two publishers' namespaces never overlap.
        namespaces.forEach((ns, k) => {
          const at =
            o.namespaces === undefined ? `${path}/id` : pointerAppend(`${path}/namespaces`, k);
          const clash = granted.find((g) => g.publisher !== id && namespacesOverlap(g.ns, ns));
          if (clash !== undefined)
            c.add(
              at,
              "duplicate",
              `namespace ${ns} of publisher "${id}" overlaps ${clash.ns} of publisher "${clash.publisher}"; an extension id has one owner`,
            );
          granted.push({ ns, publisher: id ?? "", path: at });
        });
        if (o.sources !== undefined)
          c.strings(
            `${path}/sources`,
            o.sources,
            (s) => s.startsWith("/") && s.length <= 1024,
            "invalid_value",
            "an absolute path of a directory the publisher's packages are installed from, or of one package",
          );
      });
    }
  }

  if (root.exposure !== undefined) {
    const e = c.object("/exposure", root.exposure, [], ["commands", "extensions"]);
    if (e?.commands !== undefined)
      c.strings(
        "/exposure/commands",
        e.commands,
        isIdentity,
        "invalid_identity",
        "a command identity <extension id>/<command id>",
      );
    if (e?.extensions !== undefined)
      c.strings(
        "/exposure/extensions",
        e.extensions,
        isExtensionId,
        "invalid_identity",
        "an extension id",
      );
  }

  const limits: Record<string, number> = { ...DEFAULT_OWNER_LIMITS };
  if (root.limits !== undefined) {
    const keys = Object.keys(DEFAULT_OWNER_LIMITS);
    const l = c.object("/limits", root.limits, [], keys);
    if (l !== undefined)
      for (const k of keys)
        if (l[k] !== undefined) {
          const n = c.integer(pointerAppend("/limits", k), l[k], limits[k]!, `the default ${k}`);
          if (n !== undefined) limits[k] = n;
        }
  }

  if (root.presets !== undefined) {
    const presets = c.object("/presets", root.presets, [], Object.keys(root.presets as object));
    if (presets !== undefined)
      for (const [name, p] of Object.entries(presets)) {
        const path = pointerAppend("/presets", name);
        if (!NAME.test(name))
          c.add(
            path,
            "invalid_name",
            `"${name}" is not a preset name ([a-z][a-z0-9_-], at most 64)`,
          );
        const o = c.object(
          path,
          p,
          ["commands", "actions", "resources", "deadlineMs", "maxConcurrency", "enforcement"],
          ["limits"],
        );
        if (o === undefined) continue;
        if (o.commands !== undefined)
          c.strings(
            `${path}/commands`,
            o.commands,
            (s) => isIdentity(s) || (s.endsWith("/*") && isExtensionId(s.slice(0, -2))),
            "invalid_identity",
            'a command identity or "<extension id>/*"',
          );
        if (o.actions !== undefined)
          c.strings(
            `${path}/actions`,
            o.actions,
            (s) => REQUEST.test(s),
            "invalid_value",
            "an action name",
          );
        if (o.resources !== undefined)
          c.strings(
            `${path}/resources`,
            o.resources,
            (s) => REQUEST.test(s),
            "invalid_value",
            "a resource name",
          );
        if (o.deadlineMs !== undefined)
          c.integer(
            `${path}/deadlineMs`,
            o.deadlineMs,
            limits.maxDeadlineMs!,
            "limits.maxDeadlineMs",
          );
        if (o.maxConcurrency !== undefined)
          c.integer(
            `${path}/maxConcurrency`,
            o.maxConcurrency,
            limits.maxConcurrency!,
            "limits.maxConcurrency",
          );
        if (
          o.enforcement !== undefined &&
          o.enforcement !== "host-trusted" &&
          o.enforcement !== "strict"
        )
          c.add(`${path}/enforcement`, "invalid_value", 'expected "host-trusted" or "strict"');
        if (o.limits !== undefined) {
          const keys = Object.keys(PRESET_RESOURCE_DEFAULTS);
          const l = c.object(`${path}/limits`, o.limits, [], keys);
          if (l !== undefined)
            for (const k of keys)
              if (l[k] !== undefined)
                c.integer(`${path}/limits/${k}`, l[k], Number.MAX_SAFE_INTEGER, "2^53 - 1");
        }
      }
  }
  if (root.defaultPreset !== undefined) {
    const d = c.string("/defaultPreset", root.defaultPreset, NAME, "invalid_name", "a preset name");
    if (
      d !== undefined &&
      typeof root.presets === "object" &&
      root.presets !== null &&
      !Array.isArray(root.presets) &&
      !Object.hasOwn(root.presets, d)
    )
      c.add("/defaultPreset", "unknown_preset", `preset "${d}" is not defined in /presets`);
  }
  if (root.mcp !== undefined) {
    const m = c.object("/mcp", root.mcp, [], ["toolNames", "endpoints"]);
    if (m?.toolNames !== undefined && m.toolNames !== "full" && m.toolNames !== "compact")
      c.add("/mcp/toolNames", "invalid_value", 'expected "full" or "compact"');
    if (m?.endpoints !== undefined) checkEndpoints(c, m.endpoints, root.presets);
  }
  if (root.journal !== undefined) {
    const j = c.object("/journal", root.journal, [], ["maxAgeDays", "maxBytes", "recordInputs"]);
    if (j?.recordInputs !== undefined && typeof j.recordInputs !== "boolean")
      c.add("/journal/recordInputs", "invalid_value", "expected true or false");
    if (j?.maxAgeDays !== undefined)
      c.integer("/journal/maxAgeDays", j.maxAgeDays, 36_500, "100 years");
    if (j?.maxBytes !== undefined)
      c.integer("/journal/maxBytes", j.maxBytes, Number.MAX_SAFE_INTEGER, "2^53 - 1");
  }
  if (root.sandbox !== undefined) {
    const sb = c.object("/sandbox", root.sandbox, [], ["program", "uids"]);
    if (
      sb?.program !== undefined &&
      (typeof sb.program !== "string" || !sb.program.startsWith("/") || sb.program.length > 4096)
    )
      c.add("/sandbox/program", "invalid_value", "expected an absolute path to bubblewrap");
    if (sb?.uids !== undefined) checkStrictUids(c, sb.uids);
  }
  if (c.issues.length > 0) return { ok: false, issues: c.issues };
  return { ok: true, value: value as unknown as OwnerConfig };
}

/**
 * Reads an owner configuration from untrusted bytes: strict JSON (at most
 * {@link CONFIG_MAX_BYTES}), then {@link validateOwnerConfig}.
 *
 * @example
 * const r = parseOwnerConfig(readFileSync("config.json"));
 */
export function parseOwnerConfig(
  bytes: Uint8Array | string,
): Validation<OwnerConfig, ConfigIssueCode> {
  const parsed = parseJson(bytes, { limits: { maxBytes: CONFIG_MAX_BYTES, maxNodes: 200_000 } });
  if (!parsed.ok)
    return {
      ok: false,
      issues: [{ path: "", code: "invalid_json", message: parsed.error.message }],
    };
  return validateOwnerConfig(parsed.value);
}

/**
 * A range of uids strict calls of a root host run as: `count` uids from
 * `first`.
 *
 * @example
 * const uids: StrictUids = { first: 1_879_048_192, count: 65_536 };
 */
export interface StrictUids {
  readonly first: number;
  readonly count: number;
}

/**
 * The uids strict calls of a root host take by default: 65,536 from
 * 0x70000000, above the ranges systems give to accounts, services and
 * containers.
 */
export const STRICT_UIDS_DEFAULT: StrictUids = Object.freeze({
  first: 1_879_048_192,
  count: 65_536,
});

/** The lowest uid a strict range may start at: above every 16-bit uid (accounts, nobody). */
const STRICT_UIDS_FLOOR = 65_536;
/** The first uid no range may reach (uids at or above 2^31 are negative to many tools). */
const STRICT_UIDS_CEILING = 2_147_483_648;

function checkStrictUids(c: Checker, v: JsonValue): void {
  const u = c.object("/sandbox/uids", v, ["first", "count"], []);
  if (u === undefined) return;
  const first = c.integer("/sandbox/uids/first", u.first, STRICT_UIDS_CEILING - 1, "2^31 - 1");
  const count = c.integer("/sandbox/uids/count", u.count, 16_777_216, "2^24");
  if (first !== undefined && first < STRICT_UIDS_FLOOR)
    c.add(
      "/sandbox/uids/first",
      "invalid_value",
      `uid ${first} may belong to an account; expected ${STRICT_UIDS_FLOOR} or more`,
    );
  if (first !== undefined && count !== undefined && first + count > STRICT_UIDS_CEILING)
    c.add(
      "/sandbox/uids/count",
      "invalid_value",
      `the range ends at ${first + count - 1}; expected it to end below 2^31 (${STRICT_UIDS_CEILING})`,
    );
}

/** The effective limits of a configuration: defaults lowered by `config.limits`. */
export function effectiveLimits(config: OwnerConfig): OwnerLimits {
  return { ...DEFAULT_OWNER_LIMITS, ...config.limits };
}
