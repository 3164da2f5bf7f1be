import type { JsonObject, JsonValue } from "@rukh/json";
import type {
  CommandDeclaration,
  CommandSpec,
  InputSpec,
  InputType,
  ScalarSpec,
} from "./_model.js";
import { DECIMAL_PATTERN } from "./_values.js";

function scalarSchema(spec: ScalarSpec): JsonObject {
  switch (spec.type) {
    case "string":
      return {
        type: "string",
        ...(spec.minLength !== undefined && { minLength: spec.minLength }),
        ...(spec.maxLength !== undefined && { maxLength: spec.maxLength }),
      };
    case "integer":
      return {
        type: "integer",
        minimum: spec.minimum ?? Number.MIN_SAFE_INTEGER,
        maximum: spec.maximum ?? Number.MAX_SAFE_INTEGER,
      };
    case "number":
      return {
        type: "number",
        ...(spec.minimum !== undefined && { minimum: spec.minimum }),
        ...(spec.maximum !== undefined && { maximum: spec.maximum }),
      };
    case "decimal":
      // JSON Schema cannot compare exact decimals; the bounds are stated in
      // the description and enforced by the core.
      return { type: "string", pattern: DECIMAL_PATTERN };
    case "boolean":
      return { type: "boolean" };
    case "enum":
      return { type: "string", enum: [...spec.values] };
  }
}

function decimalBounds(spec: ScalarSpec): string {
  if (spec.type !== "decimal" || (spec.minimum === undefined && spec.maximum === undefined))
    return "";
  const parts = [];
  if (spec.minimum !== undefined) parts.push(`at least ${spec.minimum}`);
  if (spec.maximum !== undefined) parts.push(`at most ${spec.maximum}`);
  return `Exact decimal string, ${parts.join(" and ")}.`;
}

/** `first` and `second` as two sentences: a stop after `first` unless it already ends one. */
function sentences(first: string, second: string): string {
  if (second === "") return first;
  return `${/[.!?…]$/.test(first.trimEnd()) ? first.trimEnd() : `${first.trimEnd()}.`} ${second}`;
}

function inputSchema(input: InputSpec): JsonObject {
  const scalar = input.type === "list" ? input.items : (input as ScalarSpec);
  const base: JsonObject =
    input.type === "list"
      ? {
          type: "array",
          items: scalarSchema(input.items),
          ...(input.minItems !== undefined && { minItems: input.minItems }),
          maxItems: input.maxItems,
        }
      : scalarSchema(input as ScalarSpec);
  const description = `${sentences(input.summary, decimalBounds(scalar))}${input.description ? `\n\n${input.description}` : ""}`;
  return {
    ...base,
    description,
    ...(input.default !== undefined && { default: input.default as JsonValue }),
  };
}

/**
 * The MCP `inputSchema` of a command: JSON Schema 2020-12, a closed root
 * object with one property per input id carrying its type, bounds, enum,
 * default and `maxItems`; decimals are strings with their exact pattern. It
 * names no dialect (`$schema`): 2020-12 is what MCP assumes of a schema
 * without one, so naming it in every tool of a list only costs bytes.
 *
 * @example
 * mcpInputSchema(command); // { type: "object", properties: {…}, required: […], additionalProperties: false }
 */
export function mcpInputSchema(command: CommandSpec): JsonObject {
  const properties: JsonObject = {};
  for (const input of command.inputs) properties[input.id] = inputSchema(input);
  const required = command.inputs.filter((i) => i.required).map((i) => i.id);
  return {
    type: "object",
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  };
}

/** One input as the CLI presents it. */
export interface CliParameter {
  readonly id: string;
  readonly type: InputType;
  /** Type of the list's elements, or of the scalar itself. */
  readonly valueType: ScalarSpec["type"];
  readonly required: boolean;
  readonly list: boolean;
  readonly summary: string;
  readonly default?: JsonValue;
  /** Long flag without dashes (absent for positionals). */
  readonly flag?: string;
  readonly short?: string;
  readonly positional?: number;
  /** Placeholder shown in help, such as `<integer>` or `<a|b|c>`. */
  readonly placeholder: string;
}

/**
 * How a declared command appears on the command line: what the lexer, help,
 * completion and docs read of an extension command and of a brand's
 * built-in alike.
 */
export interface CliCommandSpec {
  /** `<extension id>/<command id>` of an extension command; absent for a declaration alone (a built-in). */
  readonly identity?: string;
  readonly path: readonly string[];
  readonly aliases: readonly (readonly string[])[];
  readonly summary: string;
  readonly description?: string;
  readonly passthrough: boolean;
  /** Flags in declaration order. */
  readonly flags: readonly CliParameter[];
  /** Positionals by index. */
  readonly positionals: readonly CliParameter[];
}

function placeholder(input: InputSpec): string {
  const scalar = input.type === "list" ? input.items : (input as ScalarSpec);
  if (scalar.type === "enum") return `<${scalar.values.join("|")}>`;
  if (input.cli.positional !== undefined) return `<${input.id}>`;
  return `<${scalar.type}>`;
}

/**
 * The CLI view of a command or of a declaration alone: flags (kebab-case of
 * the input ids unless the declaration spells one), short flags,
 * positionals and help text. Only an extension command has an identity, and
 * only its `passthrough` program takes its words unlexed.
 *
 * @example
 * cliSpec(command).flags.map((f) => `--${f.flag}`);
 */
export function cliSpec(command: CommandSpec | CommandDeclaration): CliCommandSpec {
  const params = command.inputs.map(
    (input): CliParameter => ({
      id: input.id,
      type: input.type,
      valueType: input.type === "list" ? input.items.type : (input as ScalarSpec).type,
      required: input.required,
      list: input.type === "list",
      summary: input.summary,
      ...(input.default !== undefined && { default: input.default as JsonValue }),
      ...(input.cli.flag !== undefined && { flag: input.cli.flag }),
      ...(input.cli.short !== undefined && { short: input.cli.short }),
      ...(input.cli.positional !== undefined && { positional: input.cli.positional }),
      placeholder: placeholder(input),
    }),
  );
  const extension = "execute" in command ? command : undefined;
  return {
    ...(extension !== undefined && { identity: extension.identity }),
    path: command.path,
    aliases: command.aliases,
    summary: command.summary,
    ...(command.description !== undefined && { description: command.description }),
    passthrough: extension?.execute.mapping === "passthrough",
    flags: params.filter((p) => p.positional === undefined),
    positionals: params
      .filter((p) => p.positional !== undefined)
      .sort((a, b) => a.positional! - b.positional!),
  };
}
