import { codePointLength, type JsonValue, numberSourceText, type Validation } from "@rukh/json";
import type { CommandResultIssueCode } from "./_codes.js";
import { type CommandResultLimits, resolveLimits } from "./_limits.js";
import { type Issue, pointerOf, readBounded } from "./_measure.js";
import {
  type CompiledSchema,
  checkResultSchema,
  compiledSchemaOf,
  describe,
  type ResultSchema,
} from "./_schema.js";

/**
 * What a command declares it returns: plain text, or structured data that
 * must match a result schema accepted by {@link checkResultSchema}.
 *
 * @example
 * const declaration: ResultDeclaration = { kind: "structured", schema: checked.value };
 */
export type ResultDeclaration =
  | { readonly kind: "text" }
  | { readonly kind: "structured"; readonly schema: ResultSchema };

/**
 * A validated commandResult: exactly `{ kind: "text", text }` or `{ kind: "structured", data }`.
 *
 * @example
 * const result: CommandResult = { kind: "structured", data: { count: 3 } };
 */
export type CommandResult =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "structured"; readonly data: JsonValue };

/**
 * Validates a received commandResult against the command's declaration and
 * the limits, reporting issues with JSON pointers relative to the
 * commandResult (`/data/items/3/name`). `received` is either the UTF-8 bytes
 * of the commandResult (checked for size before parsing, then parsed strictly
 * with every limit applied while reading; integer positions are checked
 * against the exact number literal) or an already-parsed JSON value (walked
 * with counters that stop at the first breached limit). The size, depth and
 * member counts cover the whole commandResult, wrapper included. A schema not
 * produced by {@link checkResultSchema} is checked first; if it fails, the
 * result fails with `invalid_declaration`.
 *
 * @example
 * const r = validateCommandResult({ kind: "text" }, { kind: "text", text: "done" });
 * if (!r.ok) r.issues; // e.g. [{ path: "/data/count", code: "below_minimum", … }]
 */
export function validateCommandResult(
  declaration: ResultDeclaration,
  received: unknown,
  options?: { readonly limits?: Partial<CommandResultLimits> },
): Validation<CommandResult, CommandResultIssueCode> {
  return validateWithClock(declaration, received, options, validationClock, cpuClock);
}

/**
 * The clock the validation bound is kept by: elapsed time (monotonic), as
 * the design asks — what a caller waits for. An owner may lower the bound
 * (`limits.maxResultValidationMs`), never raise it.
 *
 * @example
 * const t0 = validationClock(); // milliseconds
 */
export const validationClock = (): number =>
  // Node's high-resolution clock where there is a process: the global
  // `performance` loads perf_hooks (about 2 ms of a CLI run) at first use.
  typeof process !== "undefined" && typeof process.hrtime?.bigint === "function"
    ? Number(process.hrtime.bigint()) / 1e6
    : performance.now();

/**
 * This thread's CPU time in milliseconds (the process's where Node has no
 * per-thread figure, before 22.19/23.9): the bound's second witness. A host
 * merely waiting for a core (50 calls on 2 cores: a valid 2,048-node result
 * once failed there) has not been validating; so validation stops when its
 * elapsed time is past the bound and it has also used half of it in CPU
 * time — and, whatever the CPU time says, once its elapsed time is past
 * {@link ELAPSED_CEILING} times the bound. Where Node gives no CPU time,
 * elapsed time alone.
 */
const cpuClock = (): number => {
  if (typeof process === "undefined") return performance.now();
  const thread = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (typeof thread === "function") {
    const u = thread();
    return (u.user + u.system) / 1000;
  }
  if (typeof process.cpuUsage !== "function") return performance.now();
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** How many times the bound a validation may last, elapsed, however little CPU it used. */
export const ELAPSED_CEILING = 10;

/** Thrown by the interpreter when the elapsed-time limit has passed. */
class Expired {}

class Deadline {
  private readonly start: number;
  private readonly cpuStart: number;
  constructor(
    private readonly clock: () => number,
    private readonly maxMs: number,
    private readonly cpu: (() => number) | undefined,
  ) {
    this.start = clock();
    this.cpuStart = cpu?.() ?? 0;
  }
  expired(): boolean {
    const elapsed = this.clock() - this.start;
    if (elapsed <= this.maxMs) return false;
    if (this.cpu === undefined || elapsed > this.maxMs * ELAPSED_CEILING) return true;
    return this.cpu() - this.cpuStart > this.maxMs / 2;
  }
  issues(): Issue[] {
    return [
      {
        path: "",
        code: "too_slow",
        message: `validation took longer than ${this.maxMs} ms; expected it to finish within the limit`,
      },
    ];
  }
}

/**
 * {@link validateCommandResult} with an injected millisecond clock and, for
 * its CPU-time witness, another (tests; without one, the clock alone).
 */
export function validateWithClock(
  declaration: ResultDeclaration,
  received: unknown,
  options: { readonly limits?: Partial<CommandResultLimits> } | undefined,
  clock: () => number,
  cpu?: () => number,
): Validation<CommandResult, CommandResultIssueCode> {
  const limits = resolveLimits(options?.limits);
  if (!limits.ok) return limits;
  const { resultMaxBytes, maxDepth, maxNodes, validationMaxMs } = limits.value;
  const deadline = new Deadline(clock, validationMaxMs, cpu);

  const declared: unknown = declaration;
  const kind =
    typeof declared === "object" && declared !== null
      ? (declared as { kind?: unknown }).kind
      : undefined;
  let schema: CompiledSchema | undefined;
  if (kind === "structured") {
    const given = (declared as { schema?: unknown }).schema;
    schema = compiledSchemaOf(given);
    if (schema === undefined) {
      const checked = checkResultSchema(given, options);
      if (!checked.ok) {
        const first = checked.issues[0];
        return invalidDeclaration(
          `the declared result schema fails checking (${checked.issues.length} issues, first at "${first?.path}": ${first?.message}); expected a schema accepted by checkResultSchema`,
        );
      }
      schema = compiledSchemaOf(checked.value)!;
    }
  } else if (kind !== "text") {
    return invalidDeclaration(
      'expected a declaration { kind: "text" } or { kind: "structured", schema }',
    );
  }

  const read = readBounded(received, { maxBytes: resultMaxBytes, maxDepth, maxNodes }, true);
  if (!read.ok) return read;
  if (deadline.expired()) return { ok: false, issues: deadline.issues() };

  const result = read.value;
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    return {
      ok: false,
      issues: [
        {
          path: "",
          code: "invalid_result",
          message: `found ${describe(result)}; expected an object { kind: "text", text } or { kind: "structured", data }`,
        },
      ],
    };
  }
  const issues: Issue[] = [];
  const payload = kind === "text" ? "text" : "data";
  if (!Object.hasOwn(result, "kind")) {
    issues.push({
      path: "",
      code: "invalid_result",
      message: `commandResult has no kind; expected kind "${kind}"`,
    });
  } else if (result.kind !== "text" && result.kind !== "structured") {
    issues.push({
      path: "/kind",
      code: "invalid_result",
      message: 'expected kind to be "text" or "structured"',
    });
  } else if (result.kind !== kind) {
    issues.push({
      path: "/kind",
      code: "kind_mismatch",
      message: `commandResult is "${result.kind}"; expected "${kind}" as the command declares`,
    });
  }
  for (const key of Object.keys(result)) {
    if (key !== "kind" && key !== payload) {
      issues.push({
        path: pointerOf([key]),
        code: "invalid_result",
        message: `unexpected member; expected only kind and ${payload}`,
      });
    }
  }
  if (!Object.hasOwn(result, payload)) {
    issues.push({
      path: "",
      code: "invalid_result",
      message: `commandResult has no ${payload}; expected ${kind === "text" ? "a text string" : "data matching the declared schema"}`,
    });
  } else if (schema === undefined) {
    if (typeof result.text !== "string") {
      issues.push({
        path: "/text",
        code: "invalid_result",
        message: `found ${describe(result.text!)}; expected a string`,
      });
    }
  } else {
    const interpreter = new Interpreter(deadline, read.exact);
    try {
      interpreter.visit(schema, result.data!, result, "data");
    } catch (error) {
      if (error instanceof Expired) return { ok: false, issues: deadline.issues() };
      throw error;
    }
    issues.push(...interpreter.issues);
  }
  if (deadline.expired()) return { ok: false, issues: deadline.issues() };
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: result as unknown as CommandResult };
}

function invalidDeclaration(message: string): Validation<never, CommandResultIssueCode> {
  return { ok: false, issues: [{ path: "", code: "invalid_declaration", message }] };
}

const EXPECTED: Readonly<Record<CompiledSchema["type"], string>> = {
  object: "an object",
  array: "an array",
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "a boolean",
  null: "null",
};

const PLAIN_INTEGER = /^-?\d+$/;
const NUMBER_PARTS = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

// True when a JSON number literal denotes an integer exactly ("1.0", "2e3"),
// false when its value merely rounds to one ("1.0000000000000001").
function literalIsInteger(text: string): boolean {
  const m = NUMBER_PARTS.exec(text);
  if (m === null) return false;
  const fraction = m[2] ?? "";
  let digits = (m[1]! + fraction).replace(/^0+/, "");
  if (digits === "") return true;
  let scale = fraction.length - Number(m[3] ?? 0);
  while (scale > 0 && digits.endsWith("0")) {
    digits = digits.slice(0, -1);
    scale--;
  }
  return scale <= 0;
}

// Walks data against a compiled schema. Every branch is a fixed check on
// values already known to be JSON; nothing from the schema is executed.
class Interpreter {
  readonly issues: Issue[] = [];
  private readonly keys: (string | number)[] = ["data"];
  private ticks = 0;

  constructor(
    private readonly deadline: Deadline,
    private readonly exact: boolean,
  ) {}

  visit(s: CompiledSchema, v: JsonValue, container: object, key: string | number): void {
    if ((++this.ticks & 63) === 0 && this.deadline.expired()) throw new Expired();
    switch (s.type) {
      case "object": {
        if (typeof v !== "object" || v === null || Array.isArray(v)) {
          this.mismatch(s, v);
          return;
        }
        const properties = s.properties!;
        for (const name of Object.keys(v)) {
          const child = properties.get(name);
          this.keys.push(name);
          if (child === undefined) {
            this.add(
              "additional_property",
              "member is not declared by the schema; expected only declared properties",
            );
          } else {
            this.visit(child, v[name]!, v, name);
          }
          this.keys.pop();
        }
        for (const name of s.required) {
          if (!Object.hasOwn(v, name)) {
            this.add(
              "missing_property",
              `required property "${name}" is missing; expected it to be present`,
            );
          }
        }
        return;
      }
      case "array": {
        if (!Array.isArray(v)) {
          this.mismatch(s, v);
          return;
        }
        if (v.length < s.minItems) {
          this.add("too_short", `array has ${v.length} items; expected at least ${s.minItems}`);
        } else if (v.length > s.maxItems) {
          this.add("too_long", `array has ${v.length} items; expected at most ${s.maxItems}`);
        }
        const items = s.items!;
        for (let i = 0; i < v.length; i++) {
          this.keys.push(i);
          this.visit(items, v[i]!, v, i);
          this.keys.pop();
        }
        return;
      }
      case "string": {
        if (typeof v !== "string") {
          this.mismatch(s, v);
          return;
        }
        if (s.lengthBounded) {
          // A string of n UTF-16 units holds between ceil(n/2) and n code
          // points, so most strings need no counting.
          const units = v.length;
          if (units > s.maxLength || (units + 1) >> 1 < s.minLength) {
            const n = codePointLength(v);
            if (n < s.minLength) {
              this.add(
                "too_short",
                `string has ${n} code points; expected at least ${s.minLength}`,
              );
            } else if (n > s.maxLength) {
              this.add("too_long", `string has ${n} code points; expected at most ${s.maxLength}`);
            }
          }
        }
        this.enumeration(s, v);
        return;
      }
      case "integer":
      case "number": {
        if (typeof v !== "number") {
          this.mismatch(s, v);
          return;
        }
        const text = this.exact ? numberSourceText(container, key) : undefined;
        if (text !== undefined && PLAIN_INTEGER.test(text) && !Number.isSafeInteger(v)) {
          this.add(
            "type_mismatch",
            "integer literal is outside ±(2^53−1) and would lose precision; expected a safe integer",
          );
          return;
        }
        if (s.type === "integer") {
          if (!Number.isSafeInteger(v) || (text !== undefined && !literalIsInteger(text))) {
            this.add(
              "type_mismatch",
              "number is not an exact integer within ±(2^53−1); expected an integer",
            );
            return;
          }
        }
        if (v < s.minimum) this.add("below_minimum", `number is below minimum ${s.minimum}`);
        else if (v > s.maximum) this.add("above_maximum", `number is above maximum ${s.maximum}`);
        this.enumeration(s, v);
        return;
      }
      case "boolean":
        if (typeof v !== "boolean") {
          this.mismatch(s, v);
          return;
        }
        this.enumeration(s, v);
        return;
      case "null":
        if (v !== null) {
          this.mismatch(s, v);
          return;
        }
        this.enumeration(s, v);
        return;
    }
  }

  private enumeration(s: CompiledSchema, v: string | number | boolean | null): void {
    if (s.enumValues !== undefined && !s.enumValues.includes(v)) {
      this.add("not_in_enum", "value is not one of the enum members; expected one of them");
    }
  }

  private mismatch(s: CompiledSchema, v: JsonValue): void {
    this.add("type_mismatch", `found ${describe(v)}; expected ${EXPECTED[s.type]}`);
  }

  private add(code: CommandResultIssueCode, message: string): void {
    this.issues.push({ path: pointerOf(this.keys), code, message });
  }
}
