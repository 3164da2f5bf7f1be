import { type InvocationOutcome, OUTCOME_REASONS, type OutcomeKind } from "@rukh/core";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/index.js";
import { exitCodeOf } from "../../src/output/index.js";

// The table of docs/decisions/R08-cli-exit-codes.md, for every reason the core can return.
const EXPECTED: Record<string, number> = {
  "succeeded/completed": 0,
  "command_failed/command_reported": 1,
  "command_failed/exit_status": 7,
  "rejected/invalid_input": 2,
  "execution_failed/state_unavailable": 5,
  "execution_failed/journal_failed": 5,
  "execution_failed/store_corrupt": 5,
  "cancelled/deadline": 124,
  "cancelled/client_cancel": 130,
  "cancelled/owner_cancel": 130,
  // Only an MCP host loses its transport; a CLI call never ends this way.
  "cancelled/transport_lost": 130,
};

const rows = Object.entries(OUTCOME_REASONS).flatMap(([outcome, reasons]) =>
  (reasons as readonly string[]).map((reason) => [outcome, reason] as const),
);

describe("exit codes (R08)", () => {
  it.each(rows)("%s/%s", (outcome, reason) => {
    const o = {
      invocationId: "i",
      outcome: outcome as OutcomeKind,
      reason,
      ...(reason === "exit_status" && { exitCode: 7 }),
      diagnostics: { stdoutBytes: 0, stderrBytes: 0, droppedBytes: 0 },
    } as InvocationOutcome;
    const fallback = outcome === "execution_failed" ? 3 : outcome === "rejected" ? 4 : Number.NaN;
    expect(exitCodeOf(o)).toBe(EXPECTED[`${outcome}/${reason}`] ?? fallback);
  });

  it("a cancel by SIGTERM is 143, by SIGINT 130", () => {
    const o = {
      invocationId: "i",
      outcome: "cancelled",
      reason: "owner_cancel",
      diagnostics: { stdoutBytes: 0, stderrBytes: 0, droppedBytes: 0 },
    } as InvocationOutcome;
    expect(exitCodeOf(o, "SIGTERM")).toBe(EXIT_CODES.terminated);
    expect(exitCodeOf(o, "SIGINT")).toBe(EXIT_CODES.interrupted);
  });

  it("the documented names and values", () => {
    expect(EXIT_CODES).toEqual({
      success: 0,
      commandFailed: 1,
      usage: 2,
      executionFailed: 3,
      rejected: 4,
      internal: 5,
      deadline: 124,
      interrupted: 130,
      terminated: 143,
    });
  });
});
