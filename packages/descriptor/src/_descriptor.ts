import { checkResultSchema, type ResultSchema } from "@rukh/command-result";
import {
  codePointLength,
  type JsonObject,
  type JsonValue,
  lineColumn,
  nearestWord,
  numberSourceText,
  parseJson,
  pointerAppend,
  type Validation,
  type ValidationIssue,
} from "@rukh/json";
import type { DescriptorIssueCode, InputIssueCode } from "./_codes.js";
import { checkInput } from "./_inputs.js";
import * as L from "./_limits.js";
import {
  type CliSpelling,
  type CommandSpec,
  DESCRIPTOR_FORMATS,
  type DescriptorFormat,
  type ExecuteSpec,
  type ExtensionDescriptor,
  type FeatureId,
  type GroupSpec,
  type InputSpec,
  type InputValue,
  type MachineSpec,
  REGISTERED_FEATURES,
  type ResultDeclarationSpec,
  SCALAR_TYPES,
  type ScalarSpec,
  type ScalarValue,
} from "./_model.js";
import { compareDecimal, decodeScalarJson, shown } from "./_values.js";

type Issue = ValidationIssue<DescriptorIssueCode>;

const EXTENSION_ID = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$/;
const PUBLISHER_ID = /^[a-z][a-z0-9-]*$/;
const COMMAND_ID = /^[a-z][a-z0-9]*([_-][a-z0-9]+)*$/;
const INPUT_ID = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const WORD = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const SHORT = /^[a-zA-Z]$/;
const PROGRAM = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
const REQUEST = /^[a-z][a-z0-9_.:-]*$/;
// C0 controls other than tab and newline, DEL, and the C1 controls.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-((0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(\+([0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*))?$/;

/** Long flags every Rukh CLI owns; no input may take them. */
export const RESERVED_FLAGS = ["help", "version", "json", "home", "no-color"] as const;
/** Short flags every Rukh CLI owns. */
export const RESERVED_SHORT_FLAGS = ["h", "V"] as const;

const TOP_FIELDS = [
  "$schema",
  "format",
  "id",
  "version",
  "publisher",
  "summary",
  "groups",
  "commands",
];
/** Longest `$schema` reference accepted (it only points an editor at the JSON Schema). */
const SCHEMA_REF_MAX_LENGTH = 2_048;
const GROUP_FIELDS = ["path", "summary", "description"];
const COMMAND_FIELDS = [
  "id",
  "path",
  "aliases",
  "summary",
  "description",
  "inputs",
  "execute",
  "requests",
  "machine",
];
const EXECUTE_FIELDS = ["mapping", "program", "runtime", "lifetime", "result"];
const MACHINE_FIELDS = ["eligible", "interaction", "requiredFeatures"];
const REQUEST_FIELDS = ["actions", "resources"];
const INPUT_COMMON = [
  "id",
  "type",
  "summary",
  "description",
  "required",
  "default",
  "flag",
  "short",
  "positional",
];
const CONSTRAINTS: Record<string, readonly string[]> = {
  string: ["minLength", "maxLength"],
  integer: ["minimum", "maximum"],
  number: ["minimum", "maximum"],
  decimal: ["minimum", "maximum"],
  boolean: [],
  enum: ["values"],
  list: ["items", "minItems", "maxItems"],
};
const ALL_CONSTRAINTS = [
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "values",
  "items",
  "minItems",
  "maxItems",
];

/**
 * Reads and validates an extension descriptor from its file bytes (strict
 * JSON, exact numbers, size-limited). Reports every problem found, each with a
 * JSON pointer, a stable code and what was expected. An unknown or newer
 * `format` stops reading at once: nothing of it is half-read.
 *
 * @example
 * const r = parseDescriptor(readFileSync("rukh-extension.json"));
 * if (!r.ok) for (const i of r.issues) console.error(`${i.path}: ${i.message}`);
 */
export function parseDescriptor(
  input: Uint8Array | string,
): Validation<ExtensionDescriptor, DescriptorIssueCode> {
  const parsed = parseJson(input, {
    limits: { maxBytes: L.DESCRIPTOR_MAX_BYTES, maxDepth: 48, maxNodes: 200_000 },
    numbers: "exact",
  });
  if (!parsed.ok) {
    const code = parsed.error.code === "too_large" ? "too_long" : "invalid_json";
    const { offset, message } = parsed.error;
    // Where an editor shows it: line and column, then the byte offset.
    const where =
      offset === undefined
        ? message
        : `line ${lineColumn(input, offset)} (byte ${offset}): ${message.replace(/ \(at byte \d+\)$/, "")}`;
    return { ok: false, issues: [{ path: "", code, message: where }] };
  }
  return validateDescriptor(parsed.value);
}

/**
 * Validates an already parsed descriptor value (parse it with `numbers:
 * "exact"` so integer bounds and defaults are judged on their literals).
 *
 * @example
 * validateDescriptor({ format: "rukh.extension/2", id: "acme.hello", version: "1.0.0", publisher: "acme", commands: [] });
 */
export function validateDescriptor(
  value: JsonValue,
): Validation<ExtensionDescriptor, DescriptorIssueCode> {
  const r = new Reader();
  const descriptor = r.descriptor(value);
  if (r.issues.length > 0 || descriptor === undefined) return { ok: false, issues: r.issues };
  return { ok: true, value: descriptor };
}

/** The kebab-case flag spelled from an input id: same words, `_` → `-`. */
export function defaultFlag(inputId: string): string {
  return inputId.replaceAll("_", "-");
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const typeName = (v: JsonValue | undefined) =>
  v === undefined
    ? "nothing"
    : v === null
      ? "null"
      : Array.isArray(v)
        ? "an array"
        : `a ${typeof v}`;

class Reader {
  readonly issues: Issue[] = [];
  private format: DescriptorFormat = "rukh.extension/2";

  add(path: string, code: DescriptorIssueCode, message: string): void {
    this.issues.push({ path, code, message });
  }

  /** Checks the object's fields against the allowed and required names. */
  object(
    path: string,
    v: JsonValue | undefined,
    allowed: readonly string[],
    required: readonly string[],
  ): JsonObject | undefined {
    if (!isObject(v)) {
      this.add(path, "invalid_type", `got ${typeName(v)}; expected an object`);
      return undefined;
    }
    for (const key of Object.keys(v)) {
      if (!allowed.includes(key)) {
        const near = nearestWord(key, allowed);
        this.add(
          pointerAppend(path, key),
          "unknown_field",
          `unknown field ${shown(key)}; ${near !== undefined ? `did you mean ${near}? ` : ""}expected one of ${allowed.join(", ")}`,
        );
      }
    }
    for (const key of required) {
      if (!Object.hasOwn(v, key))
        this.add(pointerAppend(path, key), "missing_field", `field ${key} is required`);
    }
    return v;
  }

  string(
    path: string,
    v: JsonValue | undefined,
    rule: { re?: RegExp; what?: string; max?: number },
  ): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "string") {
      this.add(path, "invalid_type", `got ${typeName(v)}; expected a string`);
      return undefined;
    }
    if (!v.isWellFormed() || v.includes("\u0000")) {
      this.add(
        path,
        "invalid_value",
        "string holds an unpaired surrogate or U+0000; expected well-formed text",
      );
      return undefined;
    }
    const max = rule.max ?? L.MAX_ID_LENGTH;
    if (codePointLength(v) > max) {
      this.add(
        path,
        "too_long",
        `string is longer than ${max} code points; expected a shorter one`,
      );
      return undefined;
    }
    if (rule.re && !rule.re.test(v)) {
      this.add(path, "invalid_value", `got ${shown(v)}; expected ${rule.what}`);
      return undefined;
    }
    return v;
  }

  text(path: string, v: JsonValue | undefined, max: number, required: boolean): string | undefined {
    if (v === undefined) return undefined;
    const s = this.string(path, v, { max });
    if (s !== undefined && required && s.trim() === "")
      this.add(path, "invalid_value", "got an empty text; expected a non-empty one");
    // Text is shown in help, docs and tool lists: it may not steer a terminal.
    const at = s === undefined ? -1 : s.search(CONTROL);
    if (at >= 0)
      this.add(
        path,
        "control_character",
        `got control character U+${s!.charCodeAt(at).toString(16).toUpperCase().padStart(4, "0")} at character ${at}; expected text with no control characters other than newline and tab`,
      );
    return s;
  }

  boolean(path: string, v: JsonValue | undefined): boolean | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") {
      this.add(path, "invalid_type", `got ${typeName(v)}; expected true or false`);
      return undefined;
    }
    return v;
  }

  count(path: string, v: JsonValue | undefined, max: number): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) {
      this.add(path, "invalid_value", `got ${shown(v)}; expected an integer from 0 to ${max}`);
      return undefined;
    }
    return v;
  }

  array(path: string, v: JsonValue | undefined, max: number): JsonValue[] | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) {
      this.add(path, "invalid_type", `got ${typeName(v)}; expected an array`);
      return undefined;
    }
    if (v.length > max) {
      this.add(path, "too_many", `got ${v.length} entries; expected at most ${max}`);
      return undefined;
    }
    return v;
  }

  words(path: string, v: JsonValue | undefined): string[] | undefined {
    const arr = this.array(path, v, L.MAX_PATH_WORDS);
    if (arr === undefined) return undefined;
    if (arr.length === 0) {
      this.add(path, "invalid_value", "got an empty path; expected at least one word");
      return undefined;
    }
    const words = arr.map((w, i) =>
      this.string(pointerAppend(path, i), w, { re: WORD, what: "a lowercase kebab-case word" }),
    );
    return words.every((w) => w !== undefined) ? (words as string[]) : undefined;
  }

  descriptor(v: JsonValue): ExtensionDescriptor | undefined {
    if (!isObject(v)) {
      this.add("", "invalid_type", `got ${typeName(v)}; expected a descriptor object`);
      return undefined;
    }
    const format = v.format;
    if (format === undefined) {
      this.add(
        "/format",
        "missing_field",
        `field format is required; expected one of ${DESCRIPTOR_FORMATS.join(", ")}`,
      );
      return undefined;
    }
    if (typeof format !== "string" || !(DESCRIPTOR_FORMATS as readonly string[]).includes(format)) {
      this.add(
        "/format",
        "unsupported_format",
        `format ${shown(format)} is not supported; expected one of ${DESCRIPTOR_FORMATS.join(", ")}`,
      );
      return undefined;
    }
    this.format = format as DescriptorFormat;
    this.object("", v, TOP_FIELDS, ["id", "version", "publisher", "commands"]);
    // For editors only: a reference to the JSON Schema, never part of the descriptor's meaning.
    this.string("/$schema", v.$schema, { max: SCHEMA_REF_MAX_LENGTH, what: "a schema URL" });
    const id = this.string("/id", v.id, {
      re: EXTENSION_ID,
      what: "a lowercase dotted id such as acme.files",
    });
    const version = this.string("/version", v.version, {
      re: SEMVER,
      what: "a semantic version such as 1.2.0",
    });
    const publisher = this.string("/publisher", v.publisher, {
      re: PUBLISHER_ID,
      what: "a lowercase publisher id",
    });
    const summary = this.text("/summary", v.summary, L.MAX_SUMMARY_LENGTH, true);
    const groups = (this.array("/groups", v.groups, L.MAX_GROUPS) ?? []).map((g, i) =>
      this.group(pointerAppend("/groups", i), g),
    );
    const rawCommands = this.array("/commands", v.commands, L.MAX_COMMANDS) ?? [];
    const commands = rawCommands.map((c, i) =>
      this.command(pointerAppend("/commands", i), c, id ?? "?"),
    );
    const ok = (xs: readonly unknown[]) => xs.every((x) => x !== undefined);
    if (
      id === undefined ||
      version === undefined ||
      publisher === undefined ||
      !ok(groups) ||
      !ok(commands)
    )
      return undefined;
    this.crossCheck(commands as CommandSpec[], groups as GroupSpec[]);
    return {
      format: this.format,
      id,
      version,
      publisher,
      ...(summary !== undefined && { summary }),
      groups: groups as GroupSpec[],
      commands: commands as CommandSpec[],
    };
  }

  group(path: string, v: JsonValue): GroupSpec | undefined {
    const g = this.object(path, v, GROUP_FIELDS, ["path", "summary"]);
    if (!g) return undefined;
    const words = this.words(pointerAppend(path, "path"), g.path);
    const summary = this.text(
      pointerAppend(path, "summary"),
      g.summary,
      L.MAX_SUMMARY_LENGTH,
      true,
    );
    const description = this.text(
      pointerAppend(path, "description"),
      g.description,
      L.MAX_DESCRIPTION_LENGTH,
      false,
    );
    if (words === undefined || summary === undefined) return undefined;
    return { path: words, summary, ...(description !== undefined && { description }) };
  }

  command(path: string, v: JsonValue, extensionId: string): CommandSpec | undefined {
    const c = this.object(path, v, COMMAND_FIELDS, ["id", "path", "summary", "execute"]);
    if (!c) return undefined;
    const at = (k: string) => pointerAppend(path, k);
    const id = this.string(at("id"), c.id, {
      re: COMMAND_ID,
      what: "a lowercase command id (letters, digits, _ or -)",
    });
    const words = this.words(at("path"), c.path);
    const aliases = (this.array(at("aliases"), c.aliases, L.MAX_ALIASES) ?? []).map((a, i) =>
      this.words(pointerAppend(at("aliases"), i), a),
    );
    const summary = this.text(at("summary"), c.summary, L.MAX_SUMMARY_LENGTH, true);
    const description = this.text(
      at("description"),
      c.description,
      L.MAX_DESCRIPTION_LENGTH,
      false,
    );
    const rawInputs = this.array(at("inputs"), c.inputs, L.MAX_INPUTS) ?? [];
    const inputs = rawInputs.map((x, i) => this.input(pointerAppend(at("inputs"), i), x));
    const execute = this.execute(at("execute"), c.execute);
    const requests = this.requests(at("requests"), c.requests);
    let machine: MachineSpec | undefined;
    if (c.machine !== undefined) {
      if (this.format === "rukh.extension/1") {
        this.add(
          at("machine"),
          "requires_v2",
          "machine is a rukh.extension/2 field; expected format rukh.extension/2",
        );
      } else {
        machine = this.machine(at("machine"), c.machine);
      }
    }
    if (
      id === undefined ||
      words === undefined ||
      !aliases.every((a) => a !== undefined) ||
      summary === undefined ||
      !inputs.every((i) => i !== undefined) ||
      execute === undefined ||
      requests === undefined ||
      (c.machine !== undefined && machine === undefined)
    ) {
      return undefined;
    }
    const command: CommandSpec = {
      id,
      identity: `${extensionId}/${id}`,
      path: words,
      aliases: aliases as string[][],
      summary,
      ...(description !== undefined && { description }),
      inputs: inputs as InputSpec[],
      execute,
      requests,
      ...(machine !== undefined && { machine }),
    };
    this.commandRules(path, command);
    return command;
  }

  execute(path: string, v: JsonValue | undefined): ExecuteSpec | undefined {
    const e = this.object(path, v, EXECUTE_FIELDS, ["mapping", "program", "runtime"]);
    if (!e) return undefined;
    const at = (k: string) => pointerAppend(path, k);
    const mapping = this.oneOf(at("mapping"), e.mapping, ["managed", "passthrough"]);
    const program = this.string(at("program"), e.program, {
      re: PROGRAM,
      what: "a relative /-separated path inside the package, without . or .. segments",
      max: 256,
    });
    const runtime = this.oneOf(at("runtime"), e.runtime, ["node", "native"]);
    const lifetime =
      e.lifetime === undefined
        ? "foreground"
        : this.oneOf(at("lifetime"), e.lifetime, ["foreground"]);
    let result: ResultDeclarationSpec | undefined;
    if (e.result !== undefined) {
      if (this.format === "rukh.extension/1") {
        this.add(
          at("result"),
          "requires_v2",
          "execute.result is a rukh.extension/2 field; expected format rukh.extension/2",
        );
        return undefined;
      }
      result = this.result(at("result"), e.result);
      if (result === undefined) return undefined;
    }
    if (
      mapping === undefined ||
      program === undefined ||
      runtime === undefined ||
      lifetime === undefined
    )
      return undefined;
    return {
      mapping: mapping as ExecuteSpec["mapping"],
      program,
      runtime: runtime as ExecuteSpec["runtime"],
      lifetime: "foreground",
      ...(result !== undefined && { result }),
    };
  }

  result(path: string, v: JsonValue): ResultDeclarationSpec | undefined {
    if (!isObject(v)) {
      this.add(
        path,
        "invalid_type",
        `got ${typeName(v)}; expected {"kind":"text"} or {"kind":"structured","schema":…}`,
      );
      return undefined;
    }
    const kind = this.oneOf(pointerAppend(path, "kind"), v.kind, ["text", "structured"]);
    if (kind === undefined) return undefined;
    if (kind === "text") {
      this.object(path, v, ["kind"], ["kind"]);
      return Object.keys(v).length === 1 ? { kind: "text" } : undefined;
    }
    if (!this.object(path, v, ["kind", "schema"], ["kind", "schema"]) || v.schema === undefined)
      return undefined;
    const checked = checkResultSchema(v.schema);
    if (!checked.ok) {
      for (const i of checked.issues) {
        this.add(`${path}/schema${i.path}`, "invalid_result_schema", `${i.code}: ${i.message}`);
      }
      return undefined;
    }
    return Object.keys(v).length === 2
      ? { kind: "structured", schema: checked.value as ResultSchema }
      : undefined;
  }

  machine(path: string, v: JsonValue): MachineSpec | undefined {
    const m = this.object(path, v, MACHINE_FIELDS, ["eligible"]);
    if (!m) return undefined;
    const eligible = this.boolean(pointerAppend(path, "eligible"), m.eligible);
    const interaction =
      m.interaction === undefined
        ? "none"
        : this.oneOf(pointerAppend(path, "interaction"), m.interaction, [
            "none",
            "optional",
            "required",
          ]);
    const rf =
      this.array(
        pointerAppend(path, "requiredFeatures"),
        m.requiredFeatures,
        REGISTERED_FEATURES.length,
      ) ?? [];
    const features: FeatureId[] = [];
    rf.forEach((f, i) => {
      const p = pointerAppend(pointerAppend(path, "requiredFeatures"), i);
      if (typeof f !== "string" || !(REGISTERED_FEATURES as readonly string[]).includes(f)) {
        this.add(
          p,
          "unknown_feature",
          `feature ${shown(f)} is not registered; expected one of ${REGISTERED_FEATURES.join(", ")}`,
        );
      } else if (features.includes(f as FeatureId)) {
        this.add(p, "duplicate_id", `feature ${f} is listed twice; expected each once`);
      } else {
        features.push(f as FeatureId);
      }
    });
    if (eligible === undefined || interaction === undefined || features.length !== rf.length)
      return undefined;
    return {
      eligible,
      interaction: interaction as MachineSpec["interaction"],
      requiredFeatures: features,
    };
  }

  requests(path: string, v: JsonValue | undefined): CommandSpec["requests"] | undefined {
    if (v === undefined) return { actions: [], resources: [] };
    const r = this.object(path, v, REQUEST_FIELDS, []);
    if (!r) return undefined;
    const list = (key: string) => {
      const arr = this.array(pointerAppend(path, key), r[key], L.MAX_REQUESTS) ?? [];
      const out = arr.map((x, i) =>
        this.string(pointerAppend(pointerAppend(path, key), i), x, {
          re: REQUEST,
          what: "a lowercase action or resource name",
        }),
      );
      if (new Set(out).size !== out.length)
        this.add(
          pointerAppend(path, key),
          "duplicate_id",
          "an entry is listed twice; expected each once",
        );
      return out.every((x) => x !== undefined) ? (out as string[]) : undefined;
    };
    const actions = list("actions");
    const resources = list("resources");
    return actions && resources ? { actions, resources } : undefined;
  }

  oneOf(path: string, v: JsonValue | undefined, allowed: readonly string[]): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "string" || !allowed.includes(v)) {
      this.add(path, "invalid_value", `got ${shown(v)}; expected one of ${allowed.join(", ")}`);
      return undefined;
    }
    return v;
  }

  input(path: string, v: JsonValue): InputSpec | undefined {
    if (!isObject(v)) {
      this.add(path, "invalid_type", `got ${typeName(v)}; expected an input object`);
      return undefined;
    }
    const at = (k: string) => pointerAppend(path, k);
    const type = this.oneOf(at("type"), v.type, [...SCALAR_TYPES, "list"]);
    const applicable = type === undefined ? ALL_CONSTRAINTS : (CONSTRAINTS[type] ?? []);
    this.object(path, v, [...INPUT_COMMON, ...ALL_CONSTRAINTS], ["id", "type", "summary"]);
    for (const key of ALL_CONSTRAINTS) {
      if (v[key] !== undefined && type !== undefined && !applicable.includes(key)) {
        this.add(
          at(key),
          "invalid_value",
          `${key} does not apply to ${type} inputs; expected only ${applicable.join(", ") || "no constraints"}`,
        );
      }
    }
    const id = this.string(at("id"), v.id, { re: INPUT_ID, what: "a snake_case input id" });
    const summary = this.text(at("summary"), v.summary, L.MAX_SUMMARY_LENGTH, true);
    const description = this.text(
      at("description"),
      v.description,
      L.MAX_DESCRIPTION_LENGTH,
      false,
    );
    const required = this.boolean(at("required"), v.required) ?? false;
    const cli = this.cli(path, v, id);
    if (type === undefined || id === undefined || summary === undefined || cli === undefined)
      return undefined;
    let spec:
      | ScalarSpec
      | { type: "list"; items: ScalarSpec; minItems?: number; maxItems: number }
      | undefined;
    if (type === "list") {
      const items = this.scalarSpec(at("items"), v.items, true);
      if (v.maxItems === undefined) {
        this.add(
          at("maxItems"),
          "missing_max_items",
          `a list needs a finite maxItems; expected an integer from 1 to ${L.MAX_LIST_ITEMS}`,
        );
      }
      const maxItems = this.count(at("maxItems"), v.maxItems, L.MAX_LIST_ITEMS);
      const minItems = this.count(at("minItems"), v.minItems, L.MAX_LIST_ITEMS);
      if (maxItems === 0)
        this.add(at("maxItems"), "invalid_value", "maxItems is 0; expected at least 1");
      if (minItems !== undefined && maxItems !== undefined && minItems > maxItems) {
        this.add(
          at("minItems"),
          "invalid_bounds",
          `minItems ${minItems} exceeds maxItems ${maxItems}; expected minItems ≤ maxItems`,
        );
      }
      if (items === undefined || maxItems === undefined || !maxItems) return undefined;
      spec = { type: "list", items, ...(minItems !== undefined && { minItems }), maxItems };
    } else {
      spec = this.scalarSpec(path, v, false);
    }
    if (spec === undefined) return undefined;
    const base = { id, summary, ...(description !== undefined && { description }), required, cli };
    const input = { ...base, ...spec } as InputSpec;
    if (v.default === undefined) return input;
    if (required) {
      this.add(
        at("default"),
        "required_with_default",
        "a required input cannot have a default; expected required: false or no default",
      );
      return undefined;
    }
    const dflt = this.defaultValue(at("default"), input, v);
    return dflt === undefined ? undefined : ({ ...input, default: dflt } as InputSpec);
  }

  cli(path: string, v: JsonObject, id: string | undefined): CliSpelling | undefined {
    const at = (k: string) => pointerAppend(path, k);
    const positional = this.count(at("positional"), v.positional, L.MAX_INPUTS - 1);
    const flag = this.string(at("flag"), v.flag, {
      re: WORD,
      what: "a kebab-case flag name without dashes",
    });
    const short = this.string(at("short"), v.short, { re: SHORT, what: "one ASCII letter" });
    if (v.positional !== undefined && (v.flag !== undefined || v.short !== undefined)) {
      this.add(
        at("positional"),
        "invalid_value",
        "a positional input has no flag; expected either positional or flag/short",
      );
      return undefined;
    }
    if (
      id === undefined ||
      (v.positional !== undefined && positional === undefined) ||
      (v.flag !== undefined && flag === undefined) ||
      (v.short !== undefined && short === undefined)
    ) {
      return undefined;
    }
    if (positional !== undefined) return { positional };
    return { flag: flag ?? defaultFlag(id), ...(short !== undefined && { short }) };
  }

  scalarSpec(path: string, v: JsonValue | undefined, asItems: boolean): ScalarSpec | undefined {
    const at = (k: string) => pointerAppend(path, k);
    if (asItems) {
      const o = this.object(
        path,
        v,
        ["type", "minLength", "maxLength", "minimum", "maximum", "values"],
        ["type"],
      );
      if (!o) return undefined;
      const t = this.oneOf(at("type"), o.type, SCALAR_TYPES);
      if (t === undefined) return undefined;
      for (const key of ["minLength", "maxLength", "minimum", "maximum", "values"]) {
        if (o[key] !== undefined && !(CONSTRAINTS[t] ?? []).includes(key)) {
          this.add(at(key), "invalid_value", `${key} does not apply to ${t} items`);
          return undefined;
        }
      }
      v = o;
    }
    const o = v as JsonObject;
    const type = o.type as ScalarSpec["type"];
    switch (type) {
      case "boolean":
        return { type };
      case "string": {
        const minLength = this.count(at("minLength"), o.minLength, L.MAX_STRING_INPUT_LENGTH);
        const maxLength = this.count(at("maxLength"), o.maxLength, L.MAX_STRING_INPUT_LENGTH);
        if (
          (o.minLength !== undefined && minLength === undefined) ||
          (o.maxLength !== undefined && maxLength === undefined)
        )
          return undefined;
        if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
          this.add(
            at("minLength"),
            "invalid_bounds",
            `minLength ${minLength} exceeds maxLength ${maxLength}; expected minLength ≤ maxLength`,
          );
          return undefined;
        }
        return {
          type,
          ...(minLength !== undefined && { minLength }),
          ...(maxLength !== undefined && { maxLength }),
        };
      }
      case "integer":
      case "number":
      case "decimal": {
        // Bounds are read with the same decoder as values, so a bound obeys the value rules.
        const bound = (key: "minimum" | "maximum"): number | string | undefined | null => {
          const b = o[key];
          if (b === undefined) return undefined;
          const d = decodeScalarJson({ type } as ScalarSpec, b, numberSourceText(o, key));
          if (!d.ok) {
            this.add(at(key), "invalid_value", `${key}: ${d.message}`);
            return null;
          }
          return d.value as number | string;
        };
        const minimum = bound("minimum");
        const maximum = bound("maximum");
        if (minimum === null || maximum === null) return undefined;
        if (minimum !== undefined && maximum !== undefined) {
          const order =
            type === "decimal"
              ? compareDecimal(minimum as string, maximum as string)
              : (minimum as number) - (maximum as number);
          if (order > 0) {
            this.add(
              at("minimum"),
              "invalid_bounds",
              `minimum ${minimum} exceeds maximum ${maximum}; expected minimum ≤ maximum`,
            );
            return undefined;
          }
        }
        return {
          type,
          ...(minimum !== undefined && { minimum }),
          ...(maximum !== undefined && { maximum }),
        } as ScalarSpec;
      }
      case "enum": {
        const values = o.values;
        if (!Array.isArray(values) || values.length === 0 || values.length > L.MAX_ENUM_VALUES) {
          this.add(
            at("values"),
            "invalid_enum",
            `got ${shown(values)}; expected 1 to ${L.MAX_ENUM_VALUES} distinct strings`,
          );
          return undefined;
        }
        const strings = values.map((x, i) =>
          this.string(pointerAppend(at("values"), i), x, { max: L.MAX_SUMMARY_LENGTH }),
        );
        if (!strings.every((s) => s !== undefined)) return undefined;
        if (new Set(strings).size !== strings.length) {
          this.add(
            at("values"),
            "invalid_enum",
            "an enum value is listed twice; expected distinct strings",
          );
          return undefined;
        }
        return { type, values: strings as string[] };
      }
      default:
        return undefined;
    }
  }

  defaultValue(path: string, input: InputSpec, v: JsonObject): InputValue | undefined {
    const raw = v.default!;
    const issues: ValidationIssue<InputIssueCode>[] = [];
    let value: InputValue | undefined;
    if (input.type === "list") {
      if (!Array.isArray(raw)) {
        this.add(path, "invalid_default", `got ${shown(raw)}; expected a list default`);
        return undefined;
      }
      const out: ScalarValue[] = [];
      raw.forEach((x, i) => {
        const d = decodeScalarJson(input.items, x, numberSourceText(raw, i));
        if (d.ok) out.push(d.value);
        else issues.push({ path: `/${i}`, code: d.code, message: d.message });
      });
      value = out;
    } else {
      const d = decodeScalarJson(input as ScalarSpec, raw, numberSourceText(v, "default"));
      if (d.ok) value = d.value;
      else issues.push({ path: "", code: d.code, message: d.message });
    }
    if (issues.length === 0 && value !== undefined) checkInput(input, value, "", issues);
    for (const i of issues)
      this.add(path + i.path, "invalid_default", `default fails its own constraints: ${i.message}`);
    return issues.length === 0 ? value : undefined;
  }

  commandRules(path: string, c: CommandSpec): void {
    const at = (k: string) => pointerAppend(path, k);
    if (c.execute.mapping === "passthrough") {
      if (c.inputs.length > 0)
        this.add(
          at("inputs"),
          "invalid_value",
          "a passthrough program receives raw arguments; expected no declared inputs",
        );
      if (c.execute.result !== undefined)
        this.add(
          `${path}/execute/result`,
          "invalid_value",
          "a passthrough program has no machine result; expected no execute.result",
        );
    }
    if (c.machine?.eligible) {
      if (c.execute.mapping !== "managed") {
        this.add(
          `${path}/machine/eligible`,
          "machine_requires_managed",
          "passthrough programs are CLI-only; expected mapping managed for a machine-eligible command",
        );
      }
      if (c.execute.result === undefined) {
        this.add(
          `${path}/machine/eligible`,
          "machine_requires_result",
          "a machine-eligible command must declare execute.result; expected text or structured",
        );
      }
    }
    // Inputs: unique ids, unique flags, no reserved flags, dense positionals.
    const ids = new Set<string>();
    const flags = new Map<string, number>();
    const shorts = new Map<string, number>();
    const positionals: number[] = [];
    c.inputs.forEach((input, i) => {
      const ip = pointerAppend(at("inputs"), i);
      if (ids.has(input.id))
        this.add(
          pointerAppend(ip, "id"),
          "duplicate_id",
          `input id ${input.id} is declared twice; expected unique ids`,
        );
      ids.add(input.id);
      const { flag, short, positional } = input.cli;
      if (flag !== undefined) {
        if ((RESERVED_FLAGS as readonly string[]).includes(flag)) {
          this.add(
            pointerAppend(ip, "flag"),
            "reserved_flag",
            `--${flag} belongs to the CLI itself; expected another flag name`,
          );
        } else if (flags.has(flag)) {
          this.add(
            pointerAppend(ip, "flag"),
            "flag_conflict",
            `--${flag} is already used by input ${flags.get(flag)}; expected unique flags`,
          );
        } else flags.set(flag, i);
      }
      if (short !== undefined) {
        if ((RESERVED_SHORT_FLAGS as readonly string[]).includes(short)) {
          this.add(
            pointerAppend(ip, "short"),
            "reserved_flag",
            `-${short} belongs to the CLI itself; expected another letter`,
          );
        } else if (shorts.has(short)) {
          this.add(
            pointerAppend(ip, "short"),
            "flag_conflict",
            `-${short} is already used by input ${shorts.get(short)}; expected unique short flags`,
          );
        } else shorts.set(short, i);
      }
      if (positional !== undefined) positionals.push(positional);
    });
    const sorted = [...positionals].sort((a, b) => a - b);
    sorted.forEach((p, i) => {
      if (p !== i) {
        const issue =
          sorted.indexOf(p) !== i || p < i ? "is used twice" : `leaves a gap (expected ${i})`;
        this.add(
          at("inputs"),
          "positional_conflict",
          `positional index ${p} ${issue}; expected indexes 0, 1, 2… each once`,
        );
      }
    });
    const last = sorted.length - 1;
    c.inputs.forEach((input, i) => {
      if (
        input.type === "list" &&
        input.cli.positional !== undefined &&
        input.cli.positional !== last
      ) {
        this.add(
          pointerAppend(pointerAppend(at("inputs"), i), "positional"),
          "positional_conflict",
          "a list positional takes the remaining arguments; expected it to be the last positional",
        );
      }
    });
  }

  crossCheck(commands: CommandSpec[], groups: GroupSpec[]): void {
    const ids = new Map<string, number>();
    const routes = new Map<string, string>();
    commands.forEach((c, i) => {
      const p = pointerAppend("/commands", i);
      if (ids.has(c.id))
        this.add(
          pointerAppend(p, "id"),
          "duplicate_id",
          `command id ${c.id} is declared twice; expected unique ids`,
        );
      ids.set(c.id, i);
      const claim = (words: readonly string[], where: string) => {
        const key = words.join(" ");
        const owner = routes.get(key);
        if (owner !== undefined)
          this.add(
            where,
            "route_conflict",
            `route "${key}" is already taken by ${owner}; expected each route once`,
          );
        else routes.set(key, `command ${c.id}`);
      };
      claim(c.path, pointerAppend(p, "path"));
      for (const [j, a] of c.aliases.entries())
        claim(a, pointerAppend(pointerAppend(p, "aliases"), j));
    });
    // A route that is also the prefix of another route would be both a command and a group.
    const keys = [...routes.keys()];
    for (const key of keys) {
      const child = keys.find((k) => k.startsWith(`${key} `));
      if (child !== undefined) {
        this.add(
          "/commands",
          "route_conflict",
          `route "${key}" (${routes.get(key)}) is also a group of "${child}"; expected a route to be a command or a group, not both`,
        );
      }
    }
    groups.forEach((g, i) => {
      const key = g.path.join(" ");
      const p = pointerAppend(pointerAppend("/groups", i), "path");
      if (routes.has(key))
        this.add(
          p,
          "route_conflict",
          `group "${key}" is also ${routes.get(key)}; expected a group to hold commands, not be one`,
        );
      else if (!keys.some((k) => k.startsWith(`${key} `)))
        this.add(
          p,
          "invalid_value",
          `group "${key}" holds no command; expected a prefix of a command path`,
        );
      if (groups.findIndex((h) => h.path.join(" ") === key) !== i)
        this.add(p, "duplicate_id", `group "${key}" is declared twice`);
    });
  }
}
