// The envelope of an outcome: what both surfaces show of a call (the CLI's
// --json output, an MCP tool result's structured content), the closed JSON
// Schema every tool declares for it, and the outcomes it can name. Built and
// described here, once, so that what a tool declares and what a call returns
// cannot drift apart.

import type { CommandResult } from "@rukh/command-result";
import type { CommandSpec } from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";

/**
 * The five outcomes of an invocation; every call ends in exactly one.
 *
 * @example
 * OUTCOME_KINDS.length; // 5
 */
export const OUTCOME_KINDS = [
  "succeeded",
  "command_failed",
  "execution_failed",
  "rejected",
  "cancelled",
] as const;

/**
 * One of {@link OUTCOME_KINDS}.
 *
 * @example
 * const kind: OutcomeKind = "cancelled";
 */
export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

/**
 * What both surfaces show of an outcome: the CLI's `--json` output and the
 * MCP tool result's structured content are this object. `R` is the reason's
 * type (the core's closed set of codes).
 *
 * @example
 * process.stdout.write(`${JSON.stringify(outcomeEnvelope(outcome))}\n`);
 */
export interface OutcomeEnvelope<R extends string = string> {
  readonly invocationId: string;
  readonly outcome: OutcomeKind;
  readonly reason: R;
  readonly commandResult?: CommandResult;
  readonly effects?: readonly string[];
}

/** What an envelope is made from: an outcome, with whatever else it carries. */
type EnvelopeSource<R extends string> = OutcomeEnvelope<R> & {
  readonly message?: string;
  readonly issues?: readonly DiagnosticIssue[];
  readonly resultIssues?: readonly DiagnosticIssue[];
};

/** The envelope of `o` (effects only when there are any). */
export function outcomeEnvelope<R extends string>(o: EnvelopeSource<R>): OutcomeEnvelope<R> {
  return {
    invocationId: o.invocationId,
    outcome: o.outcome,
    reason: o.reason,
    ...(o.commandResult !== undefined && { commandResult: o.commandResult }),
    ...(o.effects !== undefined && o.effects.length > 0 && { effects: o.effects }),
  };
}

/** One input or result issue, as a caller may see it. */
export interface DiagnosticIssue {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/**
 * What a failed call may show its caller beyond the envelope: the safe
 * message and the input or result issues.
 *
 * @example
 * const extra: OutcomeDiagnostic = { message: "the inputs are invalid", issues: [] };
 */
export interface OutcomeDiagnostic {
  readonly message?: string;
  readonly issues?: readonly DiagnosticIssue[];
}

/**
 * The {@link OutcomeDiagnostic} of `o`: MCP sends it as the second text
 * block of an error result; the CLI's `--json` output as `diagnostic`.
 * `undefined` for a success, or when there is nothing to add.
 *
 * @example
 * const extra = outcomeDiagnostic(outcome); // { message, issues: [{ path: "/data/ok", … }] }
 */
export function outcomeDiagnostic<R extends string>(
  o: EnvelopeSource<R>,
): OutcomeDiagnostic | undefined {
  const issues = o.issues ?? o.resultIssues;
  if (o.outcome === "succeeded" || (o.message === undefined && issues === undefined))
    return undefined;
  return {
    ...(o.message !== undefined && { message: o.message }),
    ...(issues !== undefined && { issues }),
  };
}

/**
 * The envelope's closed schema around a result wrapper's: the core's
 * members and no others, the wrapper required of a success.
 */
function schemaOf(commandResult: JsonObject): JsonObject {
  return {
    type: "object",
    properties: {
      invocationId: { type: "string" },
      outcome: { enum: [...OUTCOME_KINDS] },
      reason: { type: "string" },
      commandResult,
      effects: { type: "array", items: { type: "string" } },
    },
    required: ["invocationId", "outcome"],
    additionalProperties: false,
    if: { properties: { outcome: { const: "succeeded" } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a promise
    then: { required: ["commandResult"] },
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

// Every text command's tool has this output schema: one frozen object, not 10,000 copies.
const TEXT_ENVELOPE: JsonObject = deepFreeze(
  schemaOf({
    type: "object",
    properties: { kind: { const: "text" }, text: { type: "string" } },
    required: ["kind", "text"],
    additionalProperties: false,
  }),
);

/**
 * The closed JSON Schema of a command's envelope: every member, each result
 * kind (shared and frozen for text results; the publisher's schema inside
 * for structured ones). What a tool lists is {@link listedOutputSchema}.
 *
 * @example
 * envelopeSchema(command).required; // ["invocationId", "outcome"]
 */
export function envelopeSchema(command: CommandSpec): JsonObject {
  const result = command.execute.result;
  if (result?.kind !== "structured") return TEXT_ENVELOPE;
  return schemaOf({
    type: "object",
    properties: { kind: { const: "structured" }, data: result.schema as unknown as JsonObject },
    required: ["kind", "data"],
    additionalProperties: false,
  });
}

/**
 * The `outputSchema` a command's tool lists: its whole, closed envelope
 * ({@link envelopeSchema}), for a text result as for a structured one — the
 * core's members and no others, the result wrapper required of a success,
 * the publisher's data schema inside — so that what a client is promised is
 * what the core sends (an added member, or a success without its result,
 * is not valid under it).
 *
 * @example
 * listedOutputSchema(command).required; // ["invocationId", "outcome"]
 */
export function listedOutputSchema(command: CommandSpec): JsonObject {
  return envelopeSchema(command);
}
