// A built-in command's call: the brand's own work (install, trust, presets)
// admitted and journaled as a command's is — refused off the CLI or off the
// owner's authority, done only once its start is on disk, its one outcome
// recorded with the revision it published.

import { randomUUID } from "node:crypto";
import type { JsonObject } from "@rukh/json";
import { REVISION_ID } from "@rukh/profile/route-cache";
import {
  type BuiltinEnd,
  type BuiltinRequest,
  type HostBinding,
  type InvocationOutcome,
  OUTCOME_REASONS,
  OWNER_AUTHORITY,
} from "../contract/index.js";
import { NO_DIAGNOSTICS } from "../diagnostics/index.js";
import type { Rejection } from "./_admission.js";
import type { CoreHost } from "./_core-host.js";
import {
  type Call,
  closedOutcome,
  finalize,
  journalFailed,
  outcomeOf,
  pending,
  recordStart,
  refuse,
} from "./_invoke.js";

/** What a built-in's identity is: `builtin:` and the words of its path, one space between. */
const BUILTIN_IDENTITY = /^builtin:[a-z][a-z0-9-]{0,63}( [a-z][a-z0-9-]{0,63}){0,7}$/;

/**
 * Whether a built-in may run for `binding` on its surface: never an MCP
 * tool, and only under the owner's own authority — a task's binding, however
 * broad its preset, administers nothing.
 */
export function admitBuiltin(request: BuiltinRequest, binding: HostBinding): Rejection | null {
  const identity = request.identity;
  if (typeof identity !== "string" || !BUILTIN_IDENTITY.test(identity))
    return {
      reject: "not_found",
      message:
        "no such built-in command; expected builtin: and its path's words, one space between",
    };
  if (request.surface !== "cli")
    return {
      reject: "not_exposed",
      identity,
      message: "built-in commands run from the brand's CLI only; they are never MCP tools",
    };
  if (binding.taskAuthorityRef !== OWNER_AUTHORITY)
    return {
      reject: "preset_denied",
      identity,
      message: `${identity.slice("builtin:".length)} changes the owner's profile: it runs under the owner's own authority only, not task ${binding.taskAuthorityRef}`,
    };
  return null;
}

/** Runs one built-in on the host and resolves to its outcome, recorded in the journal unless the host is closed. */
export function invokeBuiltin(
  host: CoreHost,
  binding: HostBinding,
  request: BuiltinRequest,
): Promise<InvocationOutcome> {
  const invocationId = randomUUID();
  if (host.closed) return Promise.resolve(closedOutcome(invocationId));
  const call: Call = { host, invocationId, binding, request, startedAt: Date.now() };
  return pending(host, builtinOpen(call, request));
}

async function builtinOpen(call: Call, request: BuiltinRequest): Promise<InvocationOutcome> {
  const refused = admitBuiltin(request, call.binding);
  if (refused !== null) return refuse(call, refused);
  const { identity } = request;
  const revisionId = await activeOf(call.host);
  if (request.ownerSignal?.aborted)
    return finalize(call, {
      command: identity,
      outcome: outcomeOf(call.invocationId, revisionId, {
        outcome: "cancelled",
        reason: "owner_cancel",
        message: "the call was cancelled before it started",
        diagnostics: NO_DIAGNOSTICS,
      }),
      by: call.binding,
    });
  // Nothing is changed that the journal has not first recorded as begun.
  const started = await recordStart(call, {
    command: identity,
    revisionId: revisionId ?? "",
    digest: request.release,
    inputs: request.inputs as JsonObject,
    // A built-in's inputs may name credentials (a registry's address): their digest only, always.
    recordInputs: false,
    dev: false,
  });
  if (!started) return journalFailed(call.invocationId, revisionId);
  const end = await ended(call, request);
  return finalize(call, {
    command: identity,
    outcome: outcomeOf(call.invocationId, revisionId, {
      outcome: end.outcome,
      reason: end.reason,
      ...(end.reason === "crashed" && {
        message:
          "the built-in command failed unexpectedly; its kind of error is in the diagnostics log",
      }),
      ...(end.published !== undefined && { published: end.published }),
      diagnostics: NO_DIAGNOSTICS,
    }),
  });
}

/** The revision active as the built-in starts; none before the first publication. */
async function activeOf(host: CoreHost): Promise<string | undefined> {
  try {
    return (await host.options.state.activeRevisionId()) ?? undefined;
  } catch {
    // An unreadable profile is the built-in's to report (it reads it too); the call is still recorded.
    return undefined;
  }
}

/** How the built-in's work ended: a throw, or an end that is no outcome the core knows, is a crash. */
async function ended(call: Call, request: BuiltinRequest): Promise<BuiltinEnd> {
  const crashed: BuiltinEnd = { outcome: "execution_failed", reason: "crashed" };
  let end: BuiltinEnd;
  try {
    end = await request.run();
  } catch (e) {
    // Its kind only: a message can quote what it was given (a registry address with a password).
    const err = e as { name?: unknown; code?: unknown } | null;
    call.host.sink.logger.error(
      {
        invocationId: call.invocationId,
        command: request.identity,
        error: String(err?.name ?? typeof e),
        ...(typeof err?.code === "string" && { code: err.code }),
      },
      "a built-in command threw",
    );
    return crashed;
  }
  const reasons: readonly string[] | undefined = OUTCOME_REASONS[end?.outcome];
  if (reasons === undefined || !reasons.includes(end.reason)) return crashed;
  const published = end.published;
  return {
    outcome: end.outcome,
    reason: end.reason,
    ...(typeof published === "string" && REVISION_ID.test(published) && { published }),
  };
}
