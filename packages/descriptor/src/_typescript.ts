// TypeScript types of a descriptor's commands, for the authors who implement
// them: one entry per command identity with its inputs as the host hands them
// over (defaults applied) and, for rukh.extension/2, its declared result.
// Another projection of the one validated descriptor, like the CLI and MCP ones.
import type { ResultSchema } from "@rukh/command-result";
import type { CommandSpec, ExtensionDescriptor, InputSpec, ScalarSpec } from "./_model.js";

/** Options of {@link descriptorTypes}. */
export interface DescriptorTypesOptions {
  /** Module the handler types come from; `@rukh/ipc` unless given. */
  readonly runtimeModule?: string;
  /** Who generated the file, for its first line (`rukh ext types`). */
  readonly generator?: string;
}

/**
 * The text of a TypeScript declaration file typing every command of
 * `descriptor`: `Commands` maps each identity to `{ inputs, result }`,
 * `Handlers` to its handler type, and `Inputs<K>`/`Result<K>` pick one out.
 *
 * @example
 * writeFileSync("rukh-types.d.ts", descriptorTypes(descriptor, { generator: "acme ext types" }));
 */
export function descriptorTypes(
  descriptor: ExtensionDescriptor,
  options: DescriptorTypesOptions = {},
): string {
  const runtime = options.runtimeModule ?? "@rukh/ipc";
  const typed = descriptor.format !== "rukh.extension/1";
  // A passthrough program gets its arguments, not a handler.
  const managed = descriptor.commands.filter((c) => c.execute.mapping === "managed");
  const kinds = new Set(managed.map((c) => (typed ? c.execute.result?.kind : undefined)));
  // `Handlers` names both handler types, whichever its commands need.
  const imports = [
    "CommandHandler",
    ...(kinds.has("structured") ? ["StructuredResult"] : []),
    ...(kinds.has("text") ? ["TextResult"] : []),
    "TypedHandler",
  ];
  const lines = [
    `// Generated${options.generator === undefined ? "" : ` by \`${options.generator.replace(/\s+/g, " ")}\``} from rukh-extension.json (${descriptor.id}@${descriptor.version}).`,
    "// Regenerate it after every change to the descriptor; edits here are lost.",
    `import type { ${imports.join(", ")} } from ${JSON.stringify(runtime)};`,
    "",
    "/** Every managed command of this extension: its inputs, defaults applied, and its result (`undefined`: none declared). */",
    "export type Commands = {",
    ...managed.flatMap((c) => commandEntry(c, typed)),
    "};",
    "",
    "/** The inputs of command `K`. */",
    'export type Inputs<K extends keyof Commands> = Commands[K]["inputs"];',
    "/** The result of command `K`. */",
    'export type Result<K extends keyof Commands> = Commands[K]["result"];',
    "/**",
    " * One handler per command, as `runCommandProcess` takes them; a command",
    " * that declares a result must return one. A package whose commands run in",
    " * several programs gives each program `Pick<Handlers, …>` of its own.",
    " */",
    "export type Handlers = {",
    "  readonly [K in keyof Commands]: [Result<K>] extends [undefined]",
    "    ? CommandHandler<Inputs<K>>",
    "    : TypedHandler<Inputs<K>, Result<K>>;",
    "};",
    "",
  ];
  return lines.join("\n");
}

function commandEntry(command: CommandSpec, typed: boolean): string[] {
  const result = command.execute.result;
  return [
    ...doc(`\`${command.path.join(" ")}\`: ${command.summary}`, "  "),
    `  readonly ${JSON.stringify(command.identity)}: {`,
    "    readonly inputs: {",
    ...command.inputs.flatMap((i) => inputMember(i)),
    "    };",
    `    readonly result: ${
      !typed || result === undefined
        ? "undefined"
        : result.kind === "text"
          ? "TextResult"
          : `StructuredResult<${schemaType(result.schema, "    ")}>`
    };`,
    "  };",
  ];
}

function inputMember(input: InputSpec): string[] {
  const optional = !input.required && input.default === undefined ? "?" : "";
  const type =
    input.type === "list" ? `readonly ${wrap(scalarType(input.items))}[]` : scalarType(input);
  return [...doc(input.summary, "      "), `      readonly ${key(input.id)}${optional}: ${type};`];
}

function scalarType(spec: ScalarSpec): string {
  switch (spec.type) {
    case "enum":
      return spec.values.map((v) => JSON.stringify(v)).join(" | ");
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    default:
      // Decimals travel as exact decimal strings.
      return "string";
  }
}

/** The TypeScript type of the values `schema` accepts, indented for nesting at `indent`. */
function schemaType(schema: ResultSchema, indent: string): string {
  switch (schema.type) {
    case "object": {
      const required = new Set(schema.required ?? []);
      const inner = `${indent}  `;
      const members = Object.entries(schema.properties).flatMap(([name, property]) => [
        ...doc(property.description ?? property.title, inner),
        `${inner}readonly ${key(name)}${required.has(name) ? "" : "?"}: ${schemaType(property, inner)};`,
      ]);
      // A closed object without members holds nothing: `{}` would take any value.
      return members.length === 0
        ? "{ readonly [key: string]: never }"
        : `{\n${members.join("\n")}\n${indent}}`;
    }
    case "array":
      return `readonly ${wrap(schemaType(schema.items, indent))}[]`;
    case "string":
    case "integer":
    case "number":
    case "boolean":
    case "null": {
      const values = schema.enum as readonly unknown[] | undefined;
      if (values !== undefined) return values.map((v) => JSON.stringify(v)).join(" | ");
      return schema.type === "integer" ? "number" : schema.type;
    }
  }
}

/** A property name as TypeScript spells it: bare when it is an identifier, quoted otherwise. */
function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

/** Parenthesises a union or a read-only array before `[]`. */
function wrap(type: string): string {
  return type.includes(" | ") || type.startsWith("readonly ") ? `(${type})` : type;
}

/** A one-line JSDoc comment, or nothing; `*\/` in publisher text cannot end it early. */
function doc(text: string | undefined, indent: string): string[] {
  if (text === undefined || text === "") return [];
  const safe = text.replace(/\*\//g, "*\\/").replace(/\s+/g, " ").trim();
  return [`${indent}/** ${safe} */`];
}
