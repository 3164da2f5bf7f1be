import { type JsonValue, parseJson, pointerAppend, type ValidationIssue } from "@rukh/json";
import type { CommandResultIssueCode } from "./_codes.js";

export type Issue = ValidationIssue<CommandResultIssueCode>;

/** The bounds one document is measured against. */
export interface DocumentBounds {
  readonly maxBytes: number;
  readonly maxDepth: number;
  readonly maxNodes: number;
}

/** Outcome of reading or measuring one document. */
export type Measured =
  | { readonly ok: true; readonly value: JsonValue; readonly exact: boolean }
  | { readonly ok: false; readonly issues: Issue[] };

// Characters that JSON.stringify writes as themselves in one UTF-8 byte each.
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Builds a JSON pointer from a stack of reference tokens. */
export function pointerOf(keys: readonly (string | number)[], upTo = keys.length): string {
  let p = "";
  for (let i = 0; i < upTo; i++) p = pointerAppend(p, keys[i]!);
  return p;
}

/**
 * Reads a document from UTF-8 bytes (size checked before anything else, then
 * every bound enforced while parsing) or measures an in-memory value with
 * counters that stop at the first breach. `exactNumbers` keeps number literals
 * so that integer positions can be checked against the source text.
 */
export function readBounded(
  input: unknown,
  bounds: DocumentBounds,
  exactNumbers: boolean,
): Measured {
  if (input instanceof Uint8Array) {
    if (input.byteLength > bounds.maxBytes) {
      return fail(
        "too_large",
        `document is ${input.byteLength} bytes; expected at most ${bounds.maxBytes}`,
      );
    }
    const read = parseJson(input, {
      limits: bounds,
      ...(exactNumbers ? { numbers: "exact" as const } : {}),
    });
    if (read.ok) return { ok: true, value: read.value, exact: exactNumbers };
    const { code, message } = read.error;
    if (code === "too_large" || code === "too_deep" || code === "too_many_nodes") {
      return fail(code, message);
    }
    return fail("invalid_json", `document is not strict JSON (${code}): ${message}`);
  }
  const meter = new Meter(bounds);
  meter.walk(input, 0);
  if (meter.issues.length > 0) return { ok: false, issues: meter.issues };
  return { ok: true, value: input as JsonValue, exact: false };
}

function fail(code: CommandResultIssueCode, message: string): Measured {
  return { ok: false, issues: [{ path: "", code, message }] };
}

/** Thrown to stop a walk at the first breached bound. */
class Breach {}

// Walks an in-memory value once: checks that it is JSON data (plain objects
// and arrays, finite numbers, well-formed strings) and adds up depth, members
// plus elements, and the UTF-8 size of its compact (canonical) JSON text.
class Meter {
  readonly issues: Issue[] = [];
  private readonly keys: (string | number)[] = [];
  private bytes = 0;
  private nodes = 0;

  constructor(private readonly bounds: DocumentBounds) {}

  walk(value: unknown, depth: number): void {
    try {
      this.value(value, depth);
    } catch (error) {
      if (!(error instanceof Breach)) throw error;
    }
  }

  private value(value: unknown, depth: number): void {
    switch (typeof value) {
      case "string":
        this.string(value);
        return;
      case "number":
        if (!Number.isFinite(value)) {
          this.notJson(`the non-finite number ${value}; expected a finite number`);
          return;
        }
        this.add(String(value).length);
        return;
      case "boolean":
        this.add(value ? 4 : 5);
        return;
      case "object": {
        if (value === null) {
          this.add(4);
          return;
        }
        if (depth + 1 > this.bounds.maxDepth) {
          this.breach(
            "too_deep",
            `nesting exceeds ${this.bounds.maxDepth} levels; expected a shallower document`,
          );
        }
        if (Array.isArray(value)) {
          this.add(value.length === 0 ? 2 : 1 + value.length);
          for (let i = 0; i < value.length; i++) {
            this.keys.push(i);
            this.count();
            this.value(value[i], depth + 1);
            this.keys.pop();
          }
          return;
        }
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) {
          this.notJson("a class instance; expected a plain object");
          return;
        }
        const keys = Object.keys(value);
        this.add(keys.length === 0 ? 2 : 1 + keys.length);
        for (const key of keys) {
          this.keys.push(key);
          this.count();
          this.string(key);
          this.add(1);
          this.value((value as Record<string, unknown>)[key], depth + 1);
          this.keys.pop();
        }
        return;
      }
      default:
        this.notJson(`a value of type ${typeof value}; expected JSON data`);
    }
  }

  private string(s: string): void {
    // UTF-8 never takes fewer bytes than UTF-16 code units, so a string that
    // is too long by its length alone fails without being scanned.
    if (this.bytes + s.length + 2 > this.bounds.maxBytes) this.tooLarge();
    if (PLAIN_STRING.test(s)) {
      this.add(s.length + 2);
      return;
    }
    if (!s.isWellFormed()) {
      this.notJson("a string with an unpaired surrogate; expected well-formed Unicode");
      return;
    }
    this.add(Buffer.byteLength(JSON.stringify(s), "utf8"));
  }

  private add(n: number): void {
    this.bytes += n;
    if (this.bytes > this.bounds.maxBytes) this.tooLarge();
  }

  private count(): void {
    if (++this.nodes > this.bounds.maxNodes) {
      this.breach(
        "too_many_nodes",
        `document has more than ${this.bounds.maxNodes} object members and array elements; expected fewer`,
      );
    }
  }

  private tooLarge(): never {
    return this.breach(
      "too_large",
      `document is more than ${this.bounds.maxBytes} bytes as canonical JSON; expected at most ${this.bounds.maxBytes}`,
    );
  }

  private breach(code: CommandResultIssueCode, message: string): never {
    this.issues.length = 0;
    this.issues.push({ path: pointerOf(this.keys), code, message });
    throw new Breach();
  }

  private notJson(what: string): void {
    this.issues.push({ path: pointerOf(this.keys), code: "not_json", message: `found ${what}` });
  }
}
