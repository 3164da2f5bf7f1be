import {
  codePointLength,
  findLineBreak,
  type JsonValue,
  nearestWord,
  pointerAppend,
  type Validation,
} from "@rukh/json";
import type { CommandResultIssueCode } from "./_codes.js";
import { type CommandResultLimits, resolveLimits } from "./_limits.js";
import { type Issue, readBounded } from "./_measure.js";

type Annotated = { readonly title?: string; readonly description?: string };

/**
 * A publisher result schema that {@link checkResultSchema} accepted: a bounded
 * subset of JSON Schema 2020-12 in which every schema selects one type and
 * carries only the constraints that apply to it.
 *
 * @example
 * const schema: ResultSchema = {
 *   type: "object",
 *   properties: { count: { type: "integer", minimum: 0 } },
 *   required: ["count"],
 *   additionalProperties: false,
 * };
 */
export type ResultSchema =
  | (Annotated & {
      readonly type: "object";
      readonly properties: { readonly [name: string]: ResultSchema };
      readonly required?: readonly string[];
      readonly additionalProperties: false;
    })
  | (Annotated & {
      readonly type: "array";
      readonly items: ResultSchema;
      readonly minItems?: number;
      readonly maxItems: number;
    })
  | (Annotated & {
      readonly type: "string";
      readonly minLength?: number;
      readonly maxLength?: number;
      readonly enum?: readonly string[];
    })
  | (Annotated & {
      readonly type: "integer" | "number";
      readonly minimum?: number;
      readonly maximum?: number;
      readonly enum?: readonly number[];
    })
  | (Annotated & { readonly type: "boolean"; readonly enum?: readonly boolean[] })
  | (Annotated & { readonly type: "null"; readonly enum?: readonly null[] });

export type SchemaType = ResultSchema["type"];
type Scalar = string | number | boolean | null;

/** The checked schema in the shape the interpreter walks; data, never code. */
export interface CompiledSchema {
  readonly type: SchemaType;
  readonly properties: ReadonlyMap<string, CompiledSchema> | undefined;
  readonly required: readonly string[];
  readonly items: CompiledSchema | undefined;
  readonly minItems: number;
  readonly maxItems: number;
  readonly lengthBounded: boolean;
  readonly minLength: number;
  readonly maxLength: number;
  readonly minimum: number;
  readonly maximum: number;
  readonly enumValues: readonly Scalar[] | undefined;
}

const compiledSchemas = new WeakMap<object, CompiledSchema>();

/** The compiled form of a schema returned by {@link checkResultSchema}, if it is one. */
export function compiledSchemaOf(schema: unknown): CompiledSchema | undefined {
  return typeof schema === "object" && schema !== null ? compiledSchemas.get(schema) : undefined;
}

const TYPES: readonly SchemaType[] = [
  "object",
  "array",
  "string",
  "boolean",
  "integer",
  "number",
  "null",
];

// Which subset keywords each type admits; title and description go anywhere.
const APPLIES: Readonly<Record<string, readonly SchemaType[]>> = {
  type: TYPES,
  title: TYPES,
  description: TYPES,
  properties: ["object"],
  required: ["object"],
  additionalProperties: ["object"],
  items: ["array"],
  minItems: ["array"],
  maxItems: ["array"],
  minLength: ["string"],
  maxLength: ["string"],
  minimum: ["integer", "number"],
  maximum: ["integer", "number"],
  enum: ["string", "boolean", "integer", "number", "null"],
};
const SUBSET_KEYWORDS = Object.keys(APPLIES);

const REFERENCE =
  "references, identifiers and dialects are not accepted; expected the schema inline";
const COMPOSITION =
  "schema composition and conditionals are not accepted; expected one type with its own constraints";
const REGEX = "regular expressions are not accepted; expected length bounds or enum";
const NOT_IN_SUBSET = "this keyword is not part of the result schema subset";
const ONLY_SUBSET = `${NOT_IN_SUBSET}; expected only the keywords of the subset`;

// Known JSON Schema keywords (2020-12 and earlier drafts) outside the subset,
// each with the reason given back to the publisher.
const UNSUPPORTED: Readonly<Record<string, string>> = {
  $ref: REFERENCE,
  $dynamicRef: REFERENCE,
  $dynamicAnchor: REFERENCE,
  $recursiveRef: REFERENCE,
  $recursiveAnchor: REFERENCE,
  $id: REFERENCE,
  $schema: REFERENCE,
  $anchor: REFERENCE,
  $defs: REFERENCE,
  definitions: REFERENCE,
  $vocabulary: REFERENCE,
  $comment: `${NOT_IN_SUBSET}; expected description for prose`,
  allOf: COMPOSITION,
  anyOf: COMPOSITION,
  oneOf: COMPOSITION,
  not: COMPOSITION,
  if: COMPOSITION,
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, never awaited
  then: COMPOSITION,
  else: COMPOSITION,
  dependentSchemas: COMPOSITION,
  dependentRequired: COMPOSITION,
  dependencies: COMPOSITION,
  pattern: REGEX,
  patternProperties: REGEX,
  propertyNames: `${NOT_IN_SUBSET}; expected every property declared in properties`,
  additionalItems: `${NOT_IN_SUBSET}; expected one items schema`,
  prefixItems: `tuples are not accepted; expected one items schema`,
  unevaluatedItems: `${NOT_IN_SUBSET}; expected one items schema`,
  unevaluatedProperties: `${NOT_IN_SUBSET}; expected additionalProperties: false`,
  contains: `${NOT_IN_SUBSET}; expected one items schema`,
  minContains: ONLY_SUBSET,
  maxContains: ONLY_SUBSET,
  uniqueItems: ONLY_SUBSET,
  minProperties: `${NOT_IN_SUBSET}; expected required`,
  maxProperties: `${NOT_IN_SUBSET}; expected declared properties`,
  const: `${NOT_IN_SUBSET}; expected enum with one member`,
  multipleOf: ONLY_SUBSET,
  exclusiveMinimum: `${NOT_IN_SUBSET}; expected minimum`,
  exclusiveMaximum: `${NOT_IN_SUBSET}; expected maximum`,
  format: `${NOT_IN_SUBSET}; expected type with length bounds or enum`,
  contentEncoding: ONLY_SUBSET,
  contentMediaType: ONLY_SUBSET,
  contentSchema: ONLY_SUBSET,
  default: "defaults are not accepted; expected the publisher to send every value",
  examples: `${NOT_IN_SUBSET}; expected description for prose`,
  deprecated: ONLY_SUBSET,
  readOnly: ONLY_SUBSET,
  writeOnly: ONLY_SUBSET,
};

/**
 * Checks a publisher result schema against the command-result/1 subset and its
 * limits, reporting every issue with a JSON pointer relative to the schema
 * root (`""`). Accepts the schema as UTF-8 bytes (size measured on the bytes,
 * parsed strictly with the limits applied while reading) or as an in-memory
 * value (size measured as its canonical JSON). On success `value` is a deeply
 * frozen copy; pass that copy to {@link validateCommandResult}.
 *
 * @example
 * const checked = checkResultSchema({ type: "string", maxLenght: 3 });
 * if (!checked.ok) checked.issues; // [{ path: "/maxLenght", code: "unknown_keyword", … }]
 */
export function checkResultSchema(
  schema: unknown,
  options?: { readonly limits?: Partial<CommandResultLimits> },
): Validation<ResultSchema, CommandResultIssueCode> {
  const limits = resolveLimits(options?.limits);
  if (!limits.ok) return limits;
  const { schemaMaxBytes, maxDepth, maxNodes } = limits.value;
  const read = readBounded(schema, { maxBytes: schemaMaxBytes, maxDepth, maxNodes }, false);
  if (!read.ok) return read;
  const checker = new SchemaChecker();
  const checked = checker.schema(read.value, "");
  if (checked === undefined || checker.issues.length > 0) {
    return { ok: false, issues: checker.issues };
  }
  compiledSchemas.set(checked.copy, checked.compiled);
  return { ok: true, value: checked.copy as ResultSchema };
}

/** A compiled schema while its keywords are read. */
type Compiling = { -readonly [K in keyof CompiledSchema]: CompiledSchema[K] };

/** The compiled form of a schema of type `type` before any of its constraints are read. */
function unconstrained(type: SchemaType): Compiling {
  return {
    type,
    properties: undefined,
    required: [],
    items: undefined,
    minItems: 0,
    maxItems: Number.POSITIVE_INFINITY,
    lengthBounded: false,
    minLength: 0,
    maxLength: Number.POSITIVE_INFINITY,
    minimum: Number.NEGATIVE_INFINITY,
    maximum: Number.POSITIVE_INFINITY,
    enumValues: undefined,
  };
}

interface Checked {
  readonly copy: object;
  readonly compiled: CompiledSchema;
}

function isPlainObject(v: unknown): v is Record<string, JsonValue> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // "__proto__" is an ordinary property name in JSON.
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** `U+000A (a line feed)`: a line break as a message names it. */
function lineBreakName(brk: { readonly codePoint: number; readonly kind: string }): string {
  return `U+${brk.codePoint.toString(16).toUpperCase().padStart(4, "0")} (${brk.kind})`;
}

/** Names the JSON type of a value for messages. */
export function describe(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return "a string";
  if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a number";
  return "a boolean";
}

class SchemaChecker {
  readonly issues: Issue[] = [];

  private issue(path: string, code: CommandResultIssueCode, message: string): void {
    this.issues.push({ path, code, message });
  }

  /**
   * Checks one schema at `path` and those it holds: its keywords, its one
   * type, where each keyword applies, then the constraints of that type.
   * Every issue is collected; the copy and compiled form only when there were none.
   */
  schema(node: JsonValue, path: string): Checked | undefined {
    if (!isPlainObject(node)) {
      this.issue(
        path,
        "not_a_schema",
        `found ${describe(node)}; expected a schema object that selects one type`,
      );
      return undefined;
    }
    const before = this.issues.length;
    this.keywords(node, path);
    const t = this.type(node, path);
    if (t === undefined) return undefined;
    this.placement(node, path, t);
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(node)) setOwn(copy, key, node[key]);
    const compiled = unconstrained(t);
    switch (t) {
      case "object":
        this.object(node, path, copy, compiled);
        break;
      case "array":
        this.array(node, path, copy, compiled);
        break;
      case "string":
        this.string(node, path, compiled);
        break;
      case "integer":
      case "number":
        this.bounds(node, path, compiled);
        break;
      default:
        break;
    }
    if (Object.hasOwn(node, "enum") && (APPLIES.enum as string[]).includes(t)) {
      const members = this.enumeration(node.enum!, pointerAppend(path, "enum"), compiled);
      if (members !== undefined) {
        compiled.enumValues = members;
        copy.enum = Object.freeze([...members]);
      }
    }
    if (this.issues.length > before) return undefined;
    return { copy: Object.freeze(copy), compiled: Object.freeze(compiled) };
  }

  /** Every keyword outside the subset: unsupported (with why) or unknown (with the nearest one); and annotations that are not strings. */
  private keywords(node: Record<string, JsonValue>, path: string): void {
    for (const key of Object.keys(node)) {
      if (Object.hasOwn(APPLIES, key)) continue;
      const at = pointerAppend(path, key);
      const reason = UNSUPPORTED[key];
      if (reason !== undefined || key.startsWith("$")) {
        this.issue(at, "unsupported_keyword", `keyword "${key}": ${reason ?? REFERENCE}`);
      } else {
        const near = nearestWord(key, SUBSET_KEYWORDS);
        this.issue(
          at,
          "unknown_keyword",
          near === undefined
            ? `unknown keyword "${key}"; expected one of ${SUBSET_KEYWORDS.join(", ")}`
            : `unknown keyword "${key}"; expected "${near}"?`,
        );
      }
    }
    for (const key of ["title", "description"]) {
      if (Object.hasOwn(node, key) && typeof node[key] !== "string") {
        this.issue(
          pointerAppend(path, key),
          "invalid_keyword_value",
          `expected ${key} to be a string`,
        );
      }
    }
    // A title is shown as one line (a tool's output, a type's doc comment): it may not begin another.
    const brk = typeof node.title === "string" ? findLineBreak(node.title) : undefined;
    if (brk !== undefined)
      this.issue(
        pointerAppend(path, "title"),
        "line_break",
        `got ${lineBreakName(brk)} at character ${brk.offset}; expected a title on one line (a description may break lines)`,
      );
  }

  /** The one type the schema selects, or undefined (with its issue) when it selects none. */
  private type(node: Record<string, JsonValue>, path: string): SchemaType | undefined {
    const type = node.type;
    if (!Object.hasOwn(node, "type")) {
      this.issue(
        path,
        "missing_keyword",
        `schema has no "type"; expected one of ${TYPES.join(", ")}`,
      );
      return undefined;
    }
    if (typeof type !== "string" || !(TYPES as string[]).includes(type)) {
      this.issue(
        pointerAppend(path, "type"),
        "invalid_keyword_value",
        Array.isArray(type)
          ? `a list of types is not accepted; expected exactly one of ${TYPES.join(", ")}`
          : `expected type to be one of ${TYPES.join(", ")}`,
      );
      return undefined;
    }
    return type as SchemaType;
  }

  /** Every subset keyword that does not apply to type `t`. */
  private placement(node: Record<string, JsonValue>, path: string, t: SchemaType): void {
    for (const key of Object.keys(node)) {
      const applies = APPLIES[key];
      if (applies !== undefined && !applies.includes(t)) {
        this.issue(
          pointerAppend(path, key),
          "misplaced_keyword",
          `"${key}" does not apply to type "${t}"; expected it only with type ${applies.join(" or ")}`,
        );
      }
    }
  }

  /** An array's one items schema and its bounded item count. */
  private array(
    node: Record<string, JsonValue>,
    path: string,
    copy: Record<string, unknown>,
    compiled: Compiling,
  ): void {
    const items = this.present(node, path, "items", "one items schema");
    if (items !== undefined) {
      if (Array.isArray(items)) {
        this.issue(
          pointerAppend(path, "items"),
          "invalid_keyword_value",
          "a tuple of item schemas is not accepted; expected one schema object",
        );
      } else {
        const checked = this.schema(items, pointerAppend(path, "items"));
        if (checked !== undefined) {
          copy.items = checked.copy;
          compiled.items = checked.compiled;
        }
      }
    }
    this.present(node, path, "maxItems", "a finite maxItems");
    compiled.minItems = this.counter(node, path, "minItems") ?? 0;
    compiled.maxItems = this.counter(node, path, "maxItems") ?? Number.POSITIVE_INFINITY;
    this.ordered(path, node, "minItems", "maxItems");
  }

  /** A string's length bounds, in code points. */
  private string(node: Record<string, JsonValue>, path: string, compiled: Compiling): void {
    const min = this.counter(node, path, "minLength");
    const max = this.counter(node, path, "maxLength");
    compiled.lengthBounded = min !== undefined || max !== undefined;
    compiled.minLength = min ?? 0;
    compiled.maxLength = max ?? Number.POSITIVE_INFINITY;
    this.ordered(path, node, "minLength", "maxLength");
  }

  /** A number's or an integer's minimum and maximum. */
  private bounds(node: Record<string, JsonValue>, path: string, compiled: Compiling): void {
    for (const key of ["minimum", "maximum"] as const) {
      if (!Object.hasOwn(node, key)) continue;
      const v = node[key];
      if (typeof v !== "number") {
        this.issue(
          pointerAppend(path, key),
          "invalid_keyword_value",
          `expected ${key} to be a finite number`,
        );
      } else if (compiled.type === "integer" && Math.abs(v) > Number.MAX_SAFE_INTEGER) {
        // A bound no integer result can meet exactly: JSON numbers past 2^53 round.
        this.issue(
          pointerAppend(path, key),
          "invalid_keyword_value",
          `is ${v}; expected ${key} of an integer to be within ±(2^53−1)`,
        );
      } else {
        compiled[key] = v;
      }
    }
    this.ordered(path, node, "minimum", "maximum");
  }

  private object(
    node: Record<string, JsonValue>,
    path: string,
    copy: Record<string, unknown>,
    compiled: Compiling,
  ): void {
    const properties = this.present(node, path, "properties", "explicit properties");
    const declared = new Map<string, CompiledSchema>();
    if (properties !== undefined) {
      const at = pointerAppend(path, "properties");
      if (!isPlainObject(properties)) {
        this.issue(at, "invalid_keyword_value", "expected properties to be an object of schemas");
      } else {
        const props: Record<string, unknown> = {};
        for (const name of Object.keys(properties)) {
          const checked = this.schema(properties[name]!, pointerAppend(at, name));
          if (checked !== undefined) {
            setOwn(props, name, checked.copy);
            declared.set(name, checked.compiled);
          }
        }
        copy.properties = Object.freeze(props);
        compiled.properties = declared;
      }
    }
    const additional = this.present(
      node,
      path,
      "additionalProperties",
      "additionalProperties: false",
    );
    if (additional !== undefined && additional !== false) {
      this.issue(
        pointerAppend(path, "additionalProperties"),
        "invalid_keyword_value",
        "expected additionalProperties to be false; undeclared members are not accepted",
      );
    }
    if (!Object.hasOwn(node, "required")) return;
    const required = node.required;
    const at = pointerAppend(path, "required");
    if (!Array.isArray(required)) {
      this.issue(at, "invalid_keyword_value", "expected required to be an array of property names");
      return;
    }
    const seen = new Set<string>();
    required.forEach((name, i) => {
      const item = pointerAppend(at, i);
      if (typeof name !== "string") {
        this.issue(item, "invalid_required", `found ${describe(name)}; expected a property name`);
      } else if (seen.has(name)) {
        this.issue(item, "invalid_required", `"${name}" is listed twice; expected unique names`);
      } else {
        seen.add(name);
        if (isPlainObject(properties) && !Object.hasOwn(properties, name)) {
          this.issue(
            item,
            "invalid_required",
            `"${name}" is not declared in properties; expected a declared name`,
          );
        }
      }
    });
    copy.required = Object.freeze([...required]);
    compiled.required = [...seen];
  }

  private present(
    node: Record<string, JsonValue>,
    path: string,
    key: string,
    expected: string,
  ): JsonValue | undefined {
    if (Object.hasOwn(node, key)) return node[key];
    this.issue(
      path,
      "missing_keyword",
      `schema of type "${node.type}" has no "${key}"; expected ${expected}`,
    );
    return undefined;
  }

  private counter(node: Record<string, JsonValue>, path: string, key: string): number | undefined {
    if (!Object.hasOwn(node, key)) return undefined;
    const v = node[key];
    if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
    this.issue(
      pointerAppend(path, key),
      "invalid_keyword_value",
      `expected ${key} to be a non-negative integer`,
    );
    return undefined;
  }

  private ordered(path: string, node: Record<string, JsonValue>, low: string, high: string): void {
    const lo = node[low];
    const hi = node[high];
    if (typeof lo === "number" && typeof hi === "number" && lo > hi) {
      this.issue(
        pointerAppend(path, low),
        "inverted_bounds",
        `${low} ${lo} exceeds ${high} ${hi}; expected ${low} <= ${high}`,
      );
    }
  }

  private enumeration(
    value: JsonValue,
    path: string,
    c: {
      type: SchemaType;
      lengthBounded: boolean;
      minLength: number;
      maxLength: number;
      minimum: number;
      maximum: number;
    },
  ): Scalar[] | undefined {
    if (!Array.isArray(value) || value.length === 0) {
      this.issue(path, "invalid_enum", `expected enum to be a non-empty array of ${c.type} values`);
      return undefined;
    }
    const before = this.issues.length;
    const seen = new Set<unknown>();
    value.forEach((member, i) => {
      const at = pointerAppend(path, i);
      const problem = scalarProblem(c, member);
      if (problem !== undefined) {
        this.issue(at, "invalid_enum", `enum member ${problem}`);
      } else if (seen.has(member)) {
        this.issue(at, "invalid_enum", "enum member is listed twice; expected unique members");
      }
      seen.add(member);
    });
    return this.issues.length > before ? undefined : (value as Scalar[]);
  }
}

// Why a value does not satisfy a scalar schema, or undefined if it does; the
// wording completes "value …" or "enum member …".
export function scalarProblem(
  c: Pick<
    CompiledSchema,
    "type" | "lengthBounded" | "minLength" | "maxLength" | "minimum" | "maximum"
  >,
  v: unknown,
): string | undefined {
  switch (c.type) {
    case "string": {
      if (typeof v !== "string") return `is ${describe(v as JsonValue)}; expected a string`;
      if (!c.lengthBounded) return undefined;
      const n = codePointLength(v);
      if (n < c.minLength) return `has ${n} code points; expected at least ${c.minLength}`;
      if (n > c.maxLength) return `has ${n} code points; expected at most ${c.maxLength}`;
      return undefined;
    }
    case "integer":
    case "number": {
      if (typeof v !== "number")
        return `is ${describe(v as JsonValue)}; expected ${c.type === "integer" ? "an integer" : "a number"}`;
      if (c.type === "integer" && !Number.isSafeInteger(v))
        return "is not an integer within ±(2^53−1); expected one";
      if (v < c.minimum) return `is below minimum ${c.minimum}`;
      if (v > c.maximum) return `is above maximum ${c.maximum}`;
      return undefined;
    }
    case "boolean":
      return typeof v === "boolean"
        ? undefined
        : `is ${describe(v as JsonValue)}; expected a boolean`;
    case "null":
      return v === null ? undefined : `is ${describe(v as JsonValue)}; expected null`;
    default:
      return `cannot be used with type ${c.type}`;
  }
}
