// The inputs administrative commands declare, in the descriptor's input
// format: the same validator, lexer, decoder, help and completion as every
// extension command.

import type { InputValue } from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";

type Over = JsonObject;
const TEXT = { type: "string", minLength: 1, maxLength: 4096 } as const;

/** A required positional argument (`position` 0 first). */
export const arg = (id: string, summary: string, position = 0, over: Over = {}): JsonObject => ({
  id,
  ...TEXT,
  positional: position,
  required: true,
  summary,
  ...over,
});

/** A `--flag <value>`. */
export const flag = (id: string, summary: string, over: Over = {}): JsonObject => ({
  id,
  ...TEXT,
  summary,
  ...over,
});

/** A `--flag` that is off unless given. */
export const bool = (id: string, summary: string, over: Over = {}): JsonObject => ({
  id,
  type: "boolean",
  default: false,
  summary,
  ...over,
});

/** Positional arguments from `position` on, as a list: `minItems` (1 unless told) to `maxItems`. */
export const args = (
  id: string,
  summary: string,
  {
    position,
    maxItems,
    minItems = 1,
    maxLength = 4096,
  }: { position: number; maxItems: number; minItems?: number; maxLength?: number },
): JsonObject => ({
  id,
  type: "list",
  items: { type: "string", minLength: 1, maxLength },
  maxItems,
  ...(minItems > 0 && { minItems, required: true }),
  positional: position,
  summary,
});

/** A repeatable `--flag <value>`. */
export const many = (id: string, summary: string): JsonObject => ({
  id,
  type: "list",
  items: { type: "string", minLength: 1, maxLength: 256 },
  maxItems: 64,
  summary,
});

/** A whole number from `minimum` to `maximum`; other members of the third argument are declared as given. */
export const count = (
  id: string,
  summary: string,
  { minimum, maximum, ...over }: { minimum: number; maximum: number } & Over,
): JsonObject => ({
  id,
  type: "integer",
  minimum,
  maximum,
  summary,
  ...over,
});

/** One of fixed words. */
export const oneOf = (
  id: string,
  summary: string,
  values: readonly string[],
  over: Over = {},
): JsonObject => ({
  id,
  type: "enum",
  values: [...values],
  summary,
  ...over,
});

/** A typed input's value as a string (declared inputs are checked before a command runs). */
export const text = (
  inputs: Readonly<Record<string, InputValue>>,
  id: string,
): string | undefined => (inputs[id] === undefined ? undefined : String(inputs[id]));

/** A list input's values. */
export const texts = (inputs: Readonly<Record<string, InputValue>>, id: string): string[] =>
  Array.isArray(inputs[id]) ? (inputs[id] as unknown[]).map(String) : [];
