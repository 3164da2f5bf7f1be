import { posix } from "node:path";
import {
  COMMAND_HINTS,
  PUBLISHER_ID_PATTERN,
  REQUEST_NAME_PATTERN,
  TASK_SUPPORT,
} from "@rukh/descriptor";
import { type JsonValue, parseJson, pointerAppend, type Validation } from "@rukh/json";
import {
  CONFIG_MAX_BYTES,
  type ConfigIssueCode,
  DEFAULT_OWNER_LIMITS,
  type OwnerConfig,
  type OwnerLimits,
  PRESET_RESOURCE_DEFAULTS,
  type TaskPreset,
} from "../model/index.js";
import {
  ENDPOINT_NAMESPACE,
  isExtensionId,
  isIdentity,
  NAME,
  type Obj,
  OwnerConfigChecker,
} from "./_config-checker.js";
import { checkEndpoints } from "./_endpoints.js";
import { namespacesOverlap } from "./_trust.js";

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
  const c = new OwnerConfigChecker();
  const root = c.object(
    "",
    value,
    ["brand", "endpointNamespace", "trustedPublishers", "presets", "defaultPreset"],
    ["exposure", "limits", "mcp", "sandbox", "journal"],
  );
  if (root === undefined) return { ok: false, issues: c.issues };
  if (root.brand !== undefined)
    c.string("/brand", root.brand, {
      pattern: BRAND,
      code: "invalid_name",
      expected: "a lowercase brand name ([a-z][a-z0-9-], at most 32)",
    });
  if (root.endpointNamespace !== undefined)
    c.string("/endpointNamespace", root.endpointNamespace, {
      pattern: ENDPOINT_NAMESPACE,
      code: "invalid_name",
      expected: "an endpoint namespace ([A-Za-z0-9._:-], at most 128)",
    });

  if (root.trustedPublishers !== undefined) checkPublishers(c, root.trustedPublishers);
  if (root.exposure !== undefined) {
    const e = c.object("/exposure", root.exposure, [], ["commands", "extensions"]);
    if (e?.commands !== undefined)
      c.strings("/exposure/commands", e.commands, {
        test: isIdentity,
        code: "invalid_identity",
        expected: "a command identity <extension id>/<command id>",
      });
    if (e?.extensions !== undefined)
      c.strings("/exposure/extensions", e.extensions, {
        test: isExtensionId,
        code: "invalid_identity",
        expected: "an extension id",
      });
  }

  const limits = checkOwnerLimits(c, root.limits);
  if (root.presets !== undefined) checkPresets(c, root.presets, limits);
  if (root.defaultPreset !== undefined) {
    const d = c.string("/defaultPreset", root.defaultPreset, {
      pattern: NAME,
      code: "invalid_name",
      expected: "a preset name",
    });
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
  if (root.journal !== undefined) checkJournal(c, root.journal);
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

/** The owner's journal settings: where it is, what it keeps and for how long. */
function checkJournal(c: OwnerConfigChecker, journal: JsonValue): void {
  const j = c.object(
    "/journal",
    journal,
    [],
    ["maxAgeDays", "maxBytes", "recordInputs", "dir", "results"],
  );
  if (j?.dir !== undefined && !isJournalDir(j.dir))
    c.add(
      "/journal/dir",
      "invalid_value",
      "expected an absolute directory, without . or .. segments, of at most 4096 bytes",
    );
  if (j?.recordInputs !== undefined && typeof j.recordInputs !== "boolean")
    c.add("/journal/recordInputs", "invalid_value", "expected true or false");
  if (j?.maxAgeDays !== undefined)
    c.integer("/journal/maxAgeDays", j.maxAgeDays, 36_500, "100 years");
  if (j?.maxBytes !== undefined)
    c.integer("/journal/maxBytes", j.maxBytes, Number.MAX_SAFE_INTEGER, "2^53 - 1");
  if (j?.results !== undefined) {
    const r = c.object(
      "/journal/results",
      j.results,
      [],
      ["maxResultBytes", "maxBytes", "maxAgeDays"],
    );
    if (r?.maxResultBytes !== undefined)
      c.integer("/journal/results/maxResultBytes", r.maxResultBytes, 16_777_216, "16 MiB", 0);
    if (r?.maxBytes !== undefined)
      c.integer("/journal/results/maxBytes", r.maxBytes, Number.MAX_SAFE_INTEGER, "2^53 - 1");
    if (r?.maxAgeDays !== undefined)
      c.integer("/journal/results/maxAgeDays", r.maxAgeDays, 36_500, "100 years");
  }
}

/** An absolute, normalized path of at most 4096 bytes: where a journal directory may be. */
export function isJournalDir(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.startsWith("/") &&
    !value.includes("\0") &&
    Buffer.byteLength(value) <= 4096 &&
    posix.normalize(value) === value
  );
}

/** `/trustedPublishers`: ids, keys, and namespaces no two publishers share. */
function checkPublishers(c: OwnerConfigChecker, value: JsonValue): void {
  if (!Array.isArray(value))
    c.add("/trustedPublishers", "expected_array", "expected an array of trusted publishers");
  else {
    const ids = new Set<string>();
    const granted: { ns: string; publisher: string; path: string }[] = [];
    value.forEach((p, i) => {
      const path = pointerAppend("/trustedPublishers", i);
      const o = c.object(path, p, ["id", "publicKey"], ["namespaces", "sources"]);
      if (o === undefined) return;
      const id =
        o.id === undefined
          ? undefined
          : c.string(`${path}/id`, o.id, {
              pattern: PUBLISHER_ID_PATTERN,
              code: "invalid_name",
              expected: "a publisher id",
            });
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
          : c.strings(`${path}/namespaces`, o.namespaces, {
              test: (s) => NAMESPACE_PATTERN.test(s) && s.length <= 256,
              code: "invalid_value",
              expected: "an extension id, or one followed by .* for every id under it",
            });
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
        c.strings(`${path}/sources`, o.sources, {
          test: (s) => s.startsWith("/") && s.length <= 1024,
          code: "invalid_value",
          expected:
            "an absolute path of a directory the publisher's packages are installed from, or of one package",
        });
    });
  }
}

/** `/limits` over the defaults: the bounds presets are checked against. */
function checkOwnerLimits(
  c: OwnerConfigChecker,
  value: JsonValue | undefined,
): Record<string, number> {
  const limits: Record<string, number> = { ...DEFAULT_OWNER_LIMITS };
  if (value !== undefined) {
    const keys = Object.keys(DEFAULT_OWNER_LIMITS);
    const l = c.object("/limits", value, [], keys);
    if (l !== undefined)
      for (const k of keys)
        if (l[k] !== undefined) {
          const n = c.integer(pointerAppend("/limits", k), l[k], limits[k]!, `the default ${k}`);
          if (n !== undefined) limits[k] = n;
        }
  }
  return limits;
}

/** `/presets`: each preset's grants and bounds within the owner's limits. */
function checkPresets(
  c: OwnerConfigChecker,
  value: JsonValue,
  limits: Record<string, number>,
): void {
  const presets = c.record("/presets", value);
  if (presets !== undefined)
    for (const [name, p] of Object.entries(presets)) {
      const path = pointerAppend("/presets", name);
      if (!NAME.test(name))
        c.add(path, "invalid_name", `"${name}" is not a preset name ([a-z][a-z0-9_-], at most 64)`);
      const o = c.object(
        path,
        p,
        ["commands", "actions", "resources", "deadlineMs", "maxConcurrency", "enforcement"],
        ["limits", "hints", "tasks", "agentConsent"],
      );
      if (o === undefined) continue;
      if (o.commands !== undefined)
        c.strings(`${path}/commands`, o.commands, {
          test: (s) => isIdentity(s) || (s.endsWith("/*") && isExtensionId(s.slice(0, -2))),
          code: "invalid_identity",
          expected: 'a command identity or "<extension id>/*"',
        });
      if (o.actions !== undefined)
        c.strings(`${path}/actions`, o.actions, {
          test: (s) => REQUEST_NAME_PATTERN.test(s),
          code: "invalid_value",
          expected: "an action name",
        });
      if (o.resources !== undefined)
        c.strings(`${path}/resources`, o.resources, {
          test: (s) => REQUEST_NAME_PATTERN.test(s),
          code: "invalid_value",
          expected: "a resource name",
        });
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
      if (o.agentConsent !== undefined) checkAgentConsent(c, `${path}/agentConsent`, o);
      if (o.hints !== undefined) checkPresetHints(c, `${path}/hints`, o.hints);
      if (o.tasks !== undefined) checkPresetTasks(c, `${path}/tasks`, o.tasks);
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

/** `key` of a per-command record at `path`, refused unless an identity or `<extension id>/*`; its pointer. */
function identityKey(c: OwnerConfigChecker, path: string, key: string): string {
  const at = pointerAppend(path, key);
  if (!isIdentity(key) && !(key.endsWith("/*") && isExtensionId(key.slice(0, -2))))
    c.add(at, "invalid_identity", `"${key}" is not a command identity or "<extension id>/*"`);
  return at;
}

/** Longest consent, in characters. */
const AGENT_CONSENT_MAX_LENGTH = 300;

/** A preset's `agentConsent`: one line of the owner's words, on a host-trusted preset only. */
function checkAgentConsent(c: OwnerConfigChecker, path: string, preset: Obj): void {
  const v = preset.agentConsent;
  if (
    typeof v !== "string" ||
    v.trim() === "" ||
    /[\u0000-\u001f\u007f]/.test(v) ||
    [...v].length > AGENT_CONSENT_MAX_LENGTH
  )
    c.add(
      path,
      "invalid_value",
      `expected one line of 1 to ${AGENT_CONSENT_MAX_LENGTH} characters saying what agents given this preset may do`,
    );
  else if (preset.enforcement === "strict")
    c.add(
      path,
      "invalid_value",
      "a strict preset needs no consent to be given to agents; expected agentConsent on host-trusted presets only",
    );
}

/** A preset's `hints`: per command identity or `<extension id>/*`, hints that agree with each other. */
function checkPresetHints(c: OwnerConfigChecker, path: string, value: JsonValue): void {
  const all = c.record(path, value);
  if (all === undefined) return;
  for (const [key, v] of Object.entries(all)) {
    const at = identityKey(c, path, key);
    const hints = c.object(at, v, [], [...COMMAND_HINTS]);
    if (hints === undefined) continue;
    for (const hint of COMMAND_HINTS)
      if (hints[hint] !== undefined && typeof hints[hint] !== "boolean")
        c.add(pointerAppend(at, hint), "invalid_value", "expected true or false");
    if (hints.readOnly === true && hints.destructive === true)
      c.add(
        pointerAppend(at, "destructive"),
        "invalid_value",
        "a read-only command destroys nothing; expected destructive false or absent with readOnly true",
      );
  }
}

/** A preset's `tasks`: per command identity or `<extension id>/*`, forbidden, optional or required. */
function checkPresetTasks(c: OwnerConfigChecker, path: string, value: JsonValue): void {
  const all = c.record(path, value);
  if (all === undefined) return;
  for (const [key, v] of Object.entries(all)) {
    const at = identityKey(c, path, key);
    if (typeof v !== "string" || !(TASK_SUPPORT as readonly string[]).includes(v))
      c.add(at, "invalid_value", `expected one of ${TASK_SUPPORT.join(", ")}`);
  }
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

/** The lowest uid a strict range may start at: above every 16-bit uid (accounts, nobody). */
const STRICT_UIDS_FLOOR = 65_536;
/** The first uid no range may reach (uids at or above 2^31 are negative to many tools). */
const STRICT_UIDS_CEILING = 2_147_483_648;

function checkStrictUids(c: OwnerConfigChecker, v: JsonValue): void {
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
