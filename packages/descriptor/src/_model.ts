import type { ResultSchema } from "@rukh/command-result";

/** The descriptor formats this version reads. Anything else is unsupported, never half-read. */
export const DESCRIPTOR_FORMATS = [
  "rukh.extension/1",
  "rukh.extension/2",
  "rukh.extension/3",
] as const;
/** One of {@link DESCRIPTOR_FORMATS}. */
export type DescriptorFormat = (typeof DESCRIPTOR_FORMATS)[number];

/** Feature ids a command may require; the registry of what this host supports. */
export const REGISTERED_FEATURES = ["rukh.command-result/1"] as const;
/** One of {@link REGISTERED_FEATURES}. */
export type FeatureId = (typeof REGISTERED_FEATURES)[number];

/** Scalar input types. */
export const SCALAR_TYPES = ["string", "integer", "number", "decimal", "boolean", "enum"] as const;
/** One of {@link SCALAR_TYPES}. */
export type ScalarType = (typeof SCALAR_TYPES)[number];
/** Every input type: a scalar or a bounded list of one scalar type. */
export type InputType = ScalarType | "list";

/** Constraints of a scalar value, by type. Decimal bounds are exact decimal strings. */
export type ScalarSpec =
  | { readonly type: "string"; readonly minLength?: number; readonly maxLength?: number }
  | { readonly type: "integer"; readonly minimum?: number; readonly maximum?: number }
  | { readonly type: "number"; readonly minimum?: number; readonly maximum?: number }
  | { readonly type: "decimal"; readonly minimum?: string; readonly maximum?: string }
  | { readonly type: "boolean" }
  | { readonly type: "enum"; readonly values: readonly string[] };

/** The value of one input after decoding: strings for string, decimal and enum; numbers; booleans; lists of those. */
export type ScalarValue = string | number | boolean;
/** A typed input value. */
export type InputValue = ScalarValue | readonly ScalarValue[];

/** How an input is spelled on the command line. */
export interface CliSpelling {
  /** Long flag without dashes (kebab-case of the id unless the descriptor spells one); absent for positionals. */
  readonly flag?: string;
  /** One-letter short flag. */
  readonly short?: string;
  /** Zero-based positional index; a list positional must be the last one and takes the rest. */
  readonly positional?: number;
}

/** A declared input parameter. Its `id` is also the MCP property name. */
export type InputSpec = {
  readonly id: string;
  readonly summary: string;
  readonly description?: string;
  readonly required: boolean;
  readonly default?: InputValue;
  readonly cli: CliSpelling;
} & (
  | ScalarSpec
  | {
      readonly type: "list";
      readonly items: ScalarSpec;
      readonly minItems?: number;
      readonly maxItems: number;
    }
);

/** What a command produces as its machine result. */
export type ResultDeclarationSpec =
  | { readonly kind: "text" }
  | { readonly kind: "structured"; readonly schema: ResultSchema };

/** How the host runs a command. */
export interface ExecuteSpec {
  /** `managed`: a child process spoken to over the private IPC channel; `passthrough`: a program given the raw CLI arguments (CLI only). */
  readonly mapping: "managed" | "passthrough";
  /** Path of the program inside the extension package, `/`-separated, relative. */
  readonly program: string;
  /** `node`: a JavaScript module run by the host's Node; `native`: an executable file. */
  readonly runtime: "node" | "native";
  readonly lifetime: "foreground";
  /** rukh.extension/2 only. */
  readonly result?: ResultDeclarationSpec;
}

/** The machine contract of a command (rukh.extension/2 only); absent means not eligible. */
export interface MachineSpec {
  readonly eligible: boolean;
  readonly interaction: "none" | "optional" | "required";
  readonly requiredFeatures: readonly FeatureId[];
}

/**
 * What a command's publisher says of its effects (rukh.extension/3 only),
 * each hint optional: MCP tools carry them as annotations. They are the
 * publisher's word; a host shows where its enforcement proves more.
 */
export interface CommandHints {
  /** It changes nothing outside itself. */
  readonly readOnly?: boolean;
  /** It may destroy or overwrite what exists (meaningless when read-only). */
  readonly destructive?: boolean;
  /** Calling it again with the same inputs changes nothing more. */
  readonly idempotent?: boolean;
  /** It reaches an open world of outside entities (the network); false: a closed domain. */
  readonly openWorld?: boolean;
}

/** The hints a command may declare, in the order they are checked and listed. */
export const COMMAND_HINTS = ["readOnly", "destructive", "idempotent", "openWorld"] as const;

/**
 * Whether an MCP call of a command may run as a task — answered at once
 * with a task id, its outcome read later — (rukh.extension/3 only):
 * `forbidden` (the default: always a call that holds its request until the
 * command ends), `optional` (a task when the client can take one) or
 * `required` (only as a task). The publisher's word; an owner's preset may
 * decide otherwise.
 */
export const TASK_SUPPORT = ["forbidden", "optional", "required"] as const;
/** One of {@link TASK_SUPPORT}. */
export type TaskSupport = (typeof TASK_SUPPORT)[number];

/** Actions and resources a command asks for; asking grants nothing. */
export interface RequestsSpec {
  readonly actions: readonly string[];
  readonly resources: readonly string[];
}

/**
 * What declaring a command takes, whoever runs it: its path and aliases,
 * its help text and its typed inputs. An extension command
 * ({@link CommandSpec}) is a declaration with an execution; a brand's
 * built-in command is one on its own. Read by `validateCommandDeclarations`
 * and, inside a descriptor, by `validateDescriptor`: one grammar and one set
 * of rules for both.
 *
 * @example
 * const install: CommandDeclaration = { path: ["ext", "install"], aliases: [], summary: "Install", inputs: [] };
 */
export interface CommandDeclaration {
  readonly path: readonly string[];
  readonly aliases: readonly (readonly string[])[];
  readonly summary: string;
  readonly description?: string;
  readonly inputs: readonly InputSpec[];
}

/** One declared extension command: its declaration, and how the host runs it. */
export interface CommandSpec extends CommandDeclaration {
  readonly id: string;
  /** `<extension id>/<command id>`. */
  readonly identity: string;
  readonly execute: ExecuteSpec;
  readonly requests: RequestsSpec;
  readonly machine?: MachineSpec;
  /** rukh.extension/3 only. */
  readonly hints?: CommandHints;
  /** rukh.extension/3 only; absent is `forbidden`. */
  readonly task?: TaskSupport;
  /**
   * rukh.extension/3 only: `"strict"` when the command runs only confined —
   * never listed or run under a host-trusted preset. Absent: either.
   */
  readonly confinement?: "strict";
}

/** A group: a CLI path prefix with its own help text. A group is never a tool. */
export interface GroupSpec {
  readonly path: readonly string[];
  readonly summary: string;
  readonly description?: string;
}

/** A validated extension descriptor. */
export interface ExtensionDescriptor {
  readonly format: DescriptorFormat;
  readonly id: string;
  readonly version: string;
  readonly publisher: string;
  readonly summary?: string;
  readonly groups: readonly GroupSpec[];
  readonly commands: readonly CommandSpec[];
}
