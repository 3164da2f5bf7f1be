// The owner configuration's validator: collects every issue with its JSON
// pointer, a stable code and what was expected, instead of stopping at the
// first. Built on json's JsonChecker, so an unknown member is reported as a
// descriptor's unknown field is, with the member a typo meant.

import { COMMAND_ID_PATTERN, EXTENSION_ID_PATTERN } from "@rukh/descriptor";
import { JsonChecker, type JsonValue, pointerAppend } from "@rukh/json";
import type { ConfigIssueCode } from "../model/index.js";

/** A preset's or an endpoint's name: lowercase, at most 64 characters. */
export const NAME = /^[a-z][a-z0-9_-]{0,63}$/;
/** An endpoint namespace (part of every tool name's fingerprint). */
export const ENDPOINT_NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Most entries in one list of a configuration. */
const MAX_LIST = 4_096;

/** A JSON object of the configuration, as read. */
export type Obj = { readonly [k: string]: JsonValue };

/** What a string member must be, and the issue reported when it is not. */
export interface StringRule {
  /** The issue's code when the string is not what is expected. */
  readonly code: ConfigIssueCode;
  /** What the string must be, as the issue words it ("a preset name"). */
  readonly expected: string;
}

/** Reads the owner configuration's members, collecting every issue with a config issue code. */
export class OwnerConfigChecker extends JsonChecker<ConfigIssueCode> {
  object(
    path: string,
    v: JsonValue | undefined,
    required: string[],
    optional: string[],
  ): Obj | undefined {
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      this.add(path, "expected_object", `expected an object at "${path}"`);
      return undefined;
    }
    for (const k of required)
      if (!Object.hasOwn(v, k))
        this.add(pointerAppend(path, k), "missing_member", `"${k}" is required`);
    this.unknownFields(path, v, [...required, ...optional], {
      code: "unknown_member",
      noun: "member",
    });
    return v;
  }
  /** An object whose members are named by its owner (presets, endpoints, hints): any name, any count. */
  record(path: string, v: JsonValue | undefined): Obj | undefined {
    const names = typeof v === "object" && v !== null && !Array.isArray(v) ? Object.keys(v) : [];
    return this.object(path, v, [], names);
  }
  string(
    path: string,
    v: JsonValue | undefined,
    { pattern, code, expected }: StringRule & { readonly pattern: RegExp },
  ): string | undefined {
    if (typeof v !== "string") {
      this.add(path, "expected_string", `expected a string (${expected})`);
      return undefined;
    }
    if (!pattern.test(v)) {
      this.add(path, code, `"${v}" is not ${expected}`);
      return undefined;
    }
    return v;
  }
  strings(
    path: string,
    v: JsonValue | undefined,
    { test, code, expected }: StringRule & { readonly test: (s: string) => boolean },
  ): string[] {
    if (!Array.isArray(v)) {
      this.add(path, "expected_array", `expected an array of ${expected}`);
      return [];
    }
    if (v.length > MAX_LIST)
      this.add(path, "invalid_value", `at most ${MAX_LIST} entries are allowed`);
    const seen = new Set<string>();
    v.forEach((item, i) => {
      const p = pointerAppend(path, i);
      if (typeof item !== "string")
        this.add(p, "expected_string", `expected a string (${expected})`);
      else if (!test(item)) this.add(p, code, `"${item}" is not ${expected}`);
      else if (seen.has(item)) this.add(p, "duplicate", `"${item}" is listed twice`);
      else seen.add(item);
    });
    return [...seen];
  }
  integer(
    path: string,
    v: JsonValue | undefined,
    max: number,
    maxName: string,
    min: 0 | 1 = 1,
  ): number | undefined {
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) {
      this.add(
        path,
        "expected_integer",
        min === 0 ? "expected a non-negative integer" : "expected a positive integer",
      );
      return undefined;
    }
    if (v > max) {
      this.add(
        path,
        "limit_not_tighter",
        `${v} exceeds ${maxName} ${max}; limits may only be lowered`,
      );
      return undefined;
    }
    return v;
  }
}

/** Whether `s` is `<extension id>/<command id>`. */
export function isIdentity(s: string): boolean {
  const slash = s.indexOf("/");
  return (
    slash > 0 &&
    EXTENSION_ID_PATTERN.test(s.slice(0, slash)) &&
    COMMAND_ID_PATTERN.test(s.slice(slash + 1))
  );
}

/** Whether `s` is an extension id. */
export function isExtensionId(s: string): boolean {
  return EXTENSION_ID_PATTERN.test(s);
}
