// Checking a revision document as read from the state directory: its
// structure (`validateRevision`; its id is checked by the reader in
// `_published-revisions.ts`), and registry addresses without user info.
import type { JsonValue, Validation, ValidationIssue } from "@rukh/json";
import { validateOwnerConfig } from "../config/index.js";
import type { ProfileRevision } from "../model/index.js";
import { REVISION_ID } from "../routes/index.js";

const DEV_SOURCE_MAX_LENGTH = 4096;
const EXTENSION_KEYS = ["digest", "enabled", "id", "publisher", "version"].join(",");
const REVISION_KEYS = [
  "commandGeneration",
  "config",
  "createdAt",
  "extensions",
  "format",
  "parent",
  "sequence",
].join(",");

function isObject(v: unknown): v is { [k: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const ORIGIN_KEYS = ["integrity", "name", "registry", "spec", "version"].join(",");
const ORIGIN_TEXT_MAX_LENGTH = 2048;

/** The issues of an installed extension's `origin` (see `ExtensionOrigin`). */
function originIssues(
  origin: JsonValue,
  path: string,
  add: (path: string, message: string) => void,
): void {
  if (!isObject(origin) || Object.keys(origin).sort().join(",") !== ORIGIN_KEYS) {
    add(path, `expected an object with exactly ${ORIGIN_KEYS}`);
    return;
  }
  for (const key of ["integrity", "name", "registry", "spec", "version"])
    if (
      typeof origin[key] !== "string" ||
      origin[key] === "" ||
      origin[key].length > ORIGIN_TEXT_MAX_LENGTH ||
      /[\u0000-\u001f\u007f-\u009f]/.test(origin[key])
    )
      add(
        `${path}/${key}`,
        `expected a non-empty string of at most ${ORIGIN_TEXT_MAX_LENGTH} characters, without control characters`,
      );
  if (typeof origin.registry === "string" && !/^https?:\/\/[^/]+\/(.*\/)?$/.test(origin.registry))
    add(`${path}/registry`, "expected an http(s) registry address ending in /");
  else if (
    typeof origin.registry === "string" &&
    registryWithoutUserInfo(origin.registry) !== origin.registry
  )
    add(`${path}/registry`, "expected a registry address without user info (user:password@)");
}

/**
 * A registry address without the user info (`user:password@`) it may
 * carry: what a revision records of a registry, never a credential.
 *
 * @example
 * registryWithoutUserInfo("https://jane:s3cret@registry.example/"); // "https://registry.example/"
 */
export function registryWithoutUserInfo(registry: string): string {
  let url: URL;
  try {
    url = new URL(registry);
  } catch {
    return registry;
  }
  if (url.username === "" && url.password === "") return registry;
  url.username = "";
  url.password = "";
  return url.href;
}

/**
 * A revision value with each installed extension's `origin.registry`
 * without user info. Revisions written before registry addresses were
 * cleaned may record a password there; they are read without it (their
 * file keeps it until `profile gc` removes the revision).
 */
export function withoutRegistryUserInfo(value: JsonValue): JsonValue {
  if (!isObject(value) || !Array.isArray(value.extensions)) return value;
  let changed = false;
  const extensions = value.extensions.map((e) => {
    if (!isObject(e) || !isObject(e.origin) || typeof e.origin.registry !== "string") return e;
    const registry = registryWithoutUserInfo(e.origin.registry);
    if (registry === e.origin.registry) return e;
    changed = true;
    return { ...e, origin: { ...e.origin, registry } };
  });
  return changed ? { ...value, extensions } : value;
}

/** Validates the structure of a revision value (its id is checked by the reader). */
export function validateRevision(value: JsonValue): Validation<ProfileRevision> {
  const issues: ValidationIssue[] = [];
  const add = (path: string, message: string) =>
    issues.push({ path, code: "invalid_revision", message });
  if (
    !isObject(value) ||
    Object.keys(value)
      .filter((k) => k !== "routesDigest" && k !== "catalogDigest")
      .sort()
      .join(",") !== REVISION_KEYS
  ) {
    add("", `expected an object with exactly ${REVISION_KEYS}`);
    return { ok: false, issues };
  }
  if (value.format !== "rukh.profile/1") add("/format", 'expected "rukh.profile/1"');
  if (
    typeof value.sequence !== "number" ||
    !Number.isSafeInteger(value.sequence) ||
    value.sequence < 1
  )
    add("/sequence", "expected a positive integer");
  if (
    value.parent !== null &&
    (typeof value.parent !== "string" || !REVISION_ID.test(value.parent))
  )
    add("/parent", "expected a revision id or null");
  if (
    value.routesDigest !== undefined &&
    (typeof value.routesDigest !== "string" || !REVISION_ID.test(value.routesDigest))
  )
    add("/routesDigest", "expected 64 lowercase hex digits");
  if (
    value.catalogDigest !== undefined &&
    (typeof value.catalogDigest !== "string" || !REVISION_ID.test(value.catalogDigest))
  )
    add("/catalogDigest", "expected 64 lowercase hex digits");
  if (typeof value.createdAt !== "string" || Number.isNaN(Date.parse(value.createdAt)))
    add("/createdAt", "expected an ISO date");
  if (
    typeof value.commandGeneration !== "number" ||
    !Number.isSafeInteger(value.commandGeneration) ||
    value.commandGeneration < 0
  )
    add("/commandGeneration", "expected a non-negative integer");
  const config = validateOwnerConfig(value.config!);
  if (!config.ok) for (const i of config.issues) issues.push({ ...i, path: `/config${i.path}` });
  if (!Array.isArray(value.extensions)) add("/extensions", "expected an array");
  else {
    let prev = "";
    value.extensions.forEach((e, i) => {
      const path = `/extensions/${i}`;
      if (
        !isObject(e) ||
        Object.keys(e)
          .filter((k) => k !== "dev" && k !== "origin")
          .sort()
          .join(",") !== EXTENSION_KEYS
      ) {
        add(path, `expected an object with exactly ${EXTENSION_KEYS}`);
        return;
      }
      if (typeof e.id !== "string" || e.id <= prev)
        add(`${path}/id`, "expected extension ids unique and sorted");
      else prev = e.id;
      if (typeof e.version !== "string" || typeof e.publisher !== "string")
        add(path, "expected string version and publisher");
      if (typeof e.digest !== "string" || !REVISION_ID.test(e.digest))
        add(`${path}/digest`, "expected 64 lowercase hex digits");
      if (typeof e.enabled !== "boolean") add(`${path}/enabled`, "expected a boolean");
      if (
        e.dev !== undefined &&
        (typeof e.dev !== "string" ||
          !e.dev.startsWith("/") ||
          e.dev.length > DEV_SOURCE_MAX_LENGTH ||
          /[\u0000-\u001f\u007f-\u009f]/.test(e.dev))
      )
        add(
          `${path}/dev`,
          `expected an absolute directory of at most ${DEV_SOURCE_MAX_LENGTH} characters, without control characters`,
        );
      if (e.origin !== undefined) originIssues(e.origin, `${path}/origin`, add);
    });
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: value as unknown as ProfileRevision };
}
