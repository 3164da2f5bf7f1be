import type { ValidationIssue } from "@rukh/json";
import type { CommandResultIssueCode } from "./_codes.js";

/**
 * The bounds of command-result/1. A caller (owner profile, executor) may pass
 * smaller values; a value above the default is clamped to the default, so
 * configuration can tighten a limit but never loosen it.
 *
 * @example
 * const limits: Partial<CommandResultLimits> = { resultMaxBytes: 32_768 };
 */
export interface CommandResultLimits {
  /** Largest result schema, in UTF-8 bytes of its source (bytes) or its canonical JSON (value). */
  readonly schemaMaxBytes: number;
  /** Largest commandResult, in UTF-8 bytes of its source (bytes) or its canonical JSON (value). */
  readonly resultMaxBytes: number;
  /** Deepest nesting of objects and arrays in a schema or a commandResult (a scalar has depth 0). */
  readonly maxDepth: number;
  /** Most object members plus array elements in a whole schema or a whole commandResult. */
  readonly maxNodes: number;
  /** Longest elapsed time, in milliseconds, that validating one commandResult may take. */
  readonly validationMaxMs: number;
}

/**
 * Default size bound of one result schema: 64 KiB.
 *
 * @example
 * RESULT_SCHEMA_MAX_BYTES; // 65536
 */
export const RESULT_SCHEMA_MAX_BYTES = 65_536;
/**
 * Default size bound of one commandResult: 128 KiB of UTF-8.
 *
 * @example
 * COMMAND_RESULT_MAX_BYTES; // 131072
 */
export const COMMAND_RESULT_MAX_BYTES = 131_072;
/**
 * Default nesting bound for a schema and for a commandResult.
 *
 * @example
 * RESULT_MAX_DEPTH; // 16
 */
export const RESULT_MAX_DEPTH = 16;
/**
 * Default bound on object members plus array elements, over a whole schema or commandResult.
 *
 * @example
 * RESULT_MAX_NODES; // 2048
 */
export const RESULT_MAX_NODES = 2_048;
/**
 * Default bound on the time validating one commandResult may take, elapsed, in
 * milliseconds (the most a caller may set; an owner may lower it).
 *
 * @example
 * RESULT_VALIDATION_MAX_MS; // 100
 */
export const RESULT_VALIDATION_MAX_MS = 100;

/**
 * All defaults in one frozen object; these are also the largest values a caller can set.
 *
 * @example
 * COMMAND_RESULT_LIMITS.maxNodes; // 2048
 */
export const COMMAND_RESULT_LIMITS: CommandResultLimits = Object.freeze({
  schemaMaxBytes: RESULT_SCHEMA_MAX_BYTES,
  resultMaxBytes: COMMAND_RESULT_MAX_BYTES,
  maxDepth: RESULT_MAX_DEPTH,
  maxNodes: RESULT_MAX_NODES,
  validationMaxMs: RESULT_VALIDATION_MAX_MS,
});

export type LimitsResolution =
  | { readonly ok: true; readonly value: CommandResultLimits }
  | { readonly ok: false; readonly issues: ValidationIssue<CommandResultIssueCode>[] };

const NAMES = Object.keys(COMMAND_RESULT_LIMITS) as (keyof CommandResultLimits)[];

// Applies a caller's limits over the defaults: smaller values win, larger ones
// are clamped, and anything that is not a usable number fails closed (an
// unknown name included, so that a misspelt limit is never silently ignored).
export function resolveLimits(given: unknown): LimitsResolution {
  if (given === undefined) return { ok: true, value: COMMAND_RESULT_LIMITS };
  const issues: ValidationIssue<CommandResultIssueCode>[] = [];
  if (given === null || typeof given !== "object" || Array.isArray(given)) {
    issues.push(limitIssue("options.limits is not an object; expected an object of limits"));
    return { ok: false, issues };
  }
  const resolved: Record<string, number> = { ...COMMAND_RESULT_LIMITS };
  for (const [name, value] of Object.entries(given)) {
    if (!(NAMES as string[]).includes(name)) {
      issues.push(limitIssue(`unknown limit "${name}"; expected one of ${NAMES.join(", ")}`));
      continue;
    }
    if (value === undefined) continue;
    const whole = name !== "validationMaxMs";
    const usable =
      typeof value === "number" &&
      value >= 0 &&
      (whole ? Number.isSafeInteger(value) : Number.isFinite(value));
    if (!usable) {
      issues.push(
        limitIssue(
          `limit ${name} is ${String(value)}; expected a non-negative ${whole ? "integer" : "finite number"}`,
        ),
      );
      continue;
    }
    resolved[name] = Math.min(value, resolved[name]!);
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: resolved as unknown as CommandResultLimits };
}

function limitIssue(message: string): ValidationIssue<CommandResultIssueCode> {
  return { path: "", code: "invalid_limits", message };
}
