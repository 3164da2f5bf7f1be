import { expect, it } from "vitest";

// The built entry is the public surface; a new name here is a new public API.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "CANCEL_GRACE_MS",
      "CLEANUP_WAIT_MS",
      "CORE_ERROR_CODES",
      "CoreError",
      "DIAGNOSTICS_MAX_BYTES",
      "JOURNAL_INDEX_MAX_BYTES",
      "JOURNAL_MAX_BYTES",
      "JOURNAL_RECORD_MAX_BYTES",
      "LOST_HOST_SWEEP_MS",
      "OUTCOME_KINDS",
      "OUTCOME_REASONS",
      "OWNER_AUTHORITY",
      "READY_PROCESS_IDLE_MS",
      "RECORDED_INPUTS_MAX_BYTES",
      "RESULT_ISSUES_MAX",
      "RUNS_MAX_LIMIT",
      "SANDBOX_PROGRAM_CANDIDATES",
      "TERMINATE_GRACE_MS",
      "createInvocationCore",
      "describeConfinement",
      "describeJournal",
      "findRun",
      "findTask",
      "followRuns",
      "listRuns",
      "listTasks",
      "newTaskId",
      "openInvocationHost",
      "outcomeDiagnostic",
      "outcomeEnvelope",
      "readJournal",
      "readKeptResult",
      "recordTask",
      "repairJournal",
      "resultLimitsOf",
      "strictUnavailable",
      "throttleProgress",
    ]
  `);
});
