import { hash } from "node:crypto";
import { JsonError } from "./_errors.js";
import { pointerAppend } from "./_issues.js";
import type { JsonValue } from "./_parse.js";

/**
 * The RFC 8785 (JCS) canonical form of a JSON value.
 *
 * Strings and numbers are serialized as ECMAScript's JSON.stringify does,
 * which is exactly what RFC 8785 prescribes; object members are sorted by
 * UTF-16 code units. `json-canonicalize` is used as the differential oracle in
 * the tests but not at run time: it serializes any object with a non-null
 * `toJSON` member through JSON.stringify, which leaves that object's members
 * unsorted, and untrusted data may well contain a "toJSON" key. It also lets
 * lone surrogates through as escapes, which RFC 8785 forbids.
 *
 * Throws {@link JsonError} `not_json` for anything that is not JSON data:
 * lone surrogates, non-finite numbers, `undefined`, functions, bigints,
 * class instances, cycles.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, "x"] }); // '{"a":[true,"x"],"b":1}'
 */
export function canonicalJson(value: JsonValue): string {
  const copy = sortedCopy(value, new Set());
  // What the fast path cannot vouch for is written, or refused with its pointer, member by member.
  return copy === SLOW ? write(value, [], new Set()) : JSON.stringify(copy);
}

const SLOW = Symbol("slow");
/** Keys an object keeps in numeric order, not insertion order: JSON.stringify would not sort them. */
const INDEX_LIKE = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * A copy of `value` whose objects hold their members in RFC 8785 order, for
 * JSON.stringify to serialize as they are; `SLOW` for anything the copy
 * cannot represent exactly (an array-index-like or `__proto__` key, and
 * every value that is not JSON data, which `write` then refuses).
 */
function sortedCopy(value: unknown, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case "string":
      return value.isWellFormed() ? value : SLOW;
    case "number":
      return Number.isFinite(value) ? value : SLOW;
    case "boolean":
      return value;
    case "object": {
      if (value === null) return null;
      if (ancestors.has(value)) return SLOW;
      ancestors.add(value);
      let out: unknown;
      if (Array.isArray(value)) {
        const copy: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const c = sortedCopy(value[i], ancestors);
          if (c === SLOW) return SLOW;
          copy[i] = c;
        }
        out = copy;
      } else {
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) return SLOW;
        const keys = Object.keys(value).sort();
        const copy: Record<string, unknown> = {};
        for (const key of keys) {
          if (key === "__proto__" || INDEX_LIKE.test(key) || !key.isWellFormed()) return SLOW;
          const c = sortedCopy((value as Record<string, unknown>)[key], ancestors);
          if (c === SLOW) return SLOW;
          copy[key] = c;
        }
        out = copy;
      }
      ancestors.delete(value);
      return out;
    }
    default:
      return SLOW;
  }
}

// `path` is the member names and indexes down to `value`: the JSON pointer is
// built only for an error, not for every member written.
function write(value: unknown, path: (string | number)[], seen: Set<object>): string {
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) throw notJson(path, "a string with an unpaired surrogate");
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw notJson(path, `the non-finite number ${value}`);
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (seen.has(value)) throw notJson(path, "a cycle");
      seen.add(value);
      let out: string;
      if (Array.isArray(value)) {
        out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ",";
          path.push(i);
          out += write(value[i], path, seen);
          path.pop();
        }
        out += "]";
      } else {
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) throw notJson(path, "a class instance");
        const keys = Object.keys(value).sort();
        out = "{";
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          path.push(key);
          if (!key.isWellFormed()) throw notJson(path, "a key with an unpaired surrogate");
          if (i > 0) out += ",";
          out += `${JSON.stringify(key)}:${write((value as Record<string, unknown>)[key], path, seen)}`;
          path.pop();
        }
        out += "}";
      }
      seen.delete(value);
      return out;
    }
    default:
      throw notJson(path, `a value of type ${typeof value}`);
  }
}

function notJson(path: readonly (string | number)[], what: string): JsonError {
  const pointer = path.reduce<string>((p, segment) => pointerAppend(p, segment), "");
  return new JsonError(
    "not_json",
    `cannot canonicalize ${what} at "${pointer}"; expected JSON data`,
  );
}

/**
 * Lowercase hex SHA-256 of a string's UTF-8 bytes or of raw bytes.
 *
 * @example
 * sha256Hex("abc"); // "ba7816bf…"
 */
export function sha256Hex(data: string | Uint8Array): string {
  // Node's one-shot hash (every supported Node has it) skips a Hash object
  // per call: a start-up or publication hashes 10,000 tool names.
  return hash("sha256", data);
}

/**
 * Lowercase hex SHA-256 of the RFC 8785 canonical form of a value.
 *
 * @example
 * fingerprint(["rukh.mcp-tool/1", "acme", "rev", "ext/cmd"]); // 64 hex characters
 */
export function fingerprint(value: JsonValue): string {
  return sha256Hex(canonicalJson(value));
}
