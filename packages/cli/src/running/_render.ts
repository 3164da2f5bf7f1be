// How an invocation's outcome reaches the terminal: the result on stdout
// and what went wrong on stderr (with --json, the outcome inside the one
// envelope on stdout, and nothing on stderr), and the exit code of
// docs/cli.md.

import { type InvocationOutcome, outcomeDiagnostic, outcomeEnvelope } from "@rukh/core";
import type { CliRoute } from "@rukh/profile";
import {
  commandLine,
  errStyle,
  exitCodeOf,
  outputEnvelope,
  RUNNABLE,
  resultText,
  type Session,
  terminalBlock,
  terminalJson,
  terminalText,
} from "../output/index.js";
import { issueMessage } from "../parsing/index.js";
import type { OwnerSignal } from "./_signals.js";

/** Writes `o` for the command at `route` (its path, and its flags for an input's issues) and returns the exit code. */
export function render(
  s: Session,
  route: Pick<CliRoute, "path" | "cli">,
  o: InvocationOutcome,
  signal: OwnerSignal | undefined,
): number {
  const { stdout, stderr, outTTY } = s;
  const code = exitCodeOf(o, signal);
  if (s.g.json) {
    // The same object MCP returns as structured content, and for a failure
    // what MCP returns beside it: the safe message and the issues. Nothing
    // more on stderr: the envelope says it all.
    const diagnostic = outcomeDiagnostic(o);
    const outcome = { ...outcomeEnvelope(o), ...(diagnostic !== undefined && { diagnostic }) };
    const line = outputEnvelope(route.path, { outcome });
    // One line, as every envelope; on a terminal its DEL and C1 controls escaped too.
    stdout.write(outTTY ? terminalJson(line) : line);
    return code;
  }
  if (o.commandResult !== undefined) stdout.write(resultText(o.commandResult, outTTY));
  if (o.outcome === "succeeded") return code;
  const style = errStyle(s);
  if (o.outcome === "rejected" && o.reason === "invalid_input" && o.issues !== undefined) {
    for (const issue of o.issues)
      stderr.write(`${style.error("error:")} ${terminalBlock(issueMessage(route.cli, issue))}\n`);
    stderr.write(
      `See:\n${RUNNABLE}${terminalText(commandLine([s.brand, ...route.path, "--help"]))}\n`,
    );
    return code;
  }
  if (o.outcome === "command_failed" && o.reason === "exit_status") return code;
  const what =
    o.outcome === "cancelled"
      ? "cancelled"
      : o.outcome === "command_failed"
        ? "command failed"
        : o.outcome === "rejected"
          ? "not run"
          : "execution failed";
  stderr.write(
    `${style.error("error:")} ${what}${o.message !== undefined ? `: ${terminalBlock(o.message)}` : ""} (${o.outcome}/${o.reason})\n`,
  );
  // Where the result missed its declaration: what its author needs to fix it.
  for (const i of o.resultIssues ?? [])
    stderr.write(`  ${terminalBlock(i.path || "/")}: ${terminalBlock(i.message)} (${i.code})\n`);
  if (o.diagnostics.logFile !== undefined && o.outcome === "execution_failed")
    stderr.write(`the command's output is in ${terminalText(o.diagnostics.logFile)}\n`);
  return code;
}
