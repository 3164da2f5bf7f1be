// The owner's diagnostics log: what commands print and what the core notes
// about them, as JSON lines in the shape log tools already read. Imports the
// contract only.
//
// 1. _logger.ts       one entry as one JSON line (formatting only, never throws)
// 2. _diagnostics.ts  the soft log file, and each call's share of it (its budget)
//
// The door: what the other rooms of the core use from here.

export type { InvocationDiagnosticsBudget } from "./_diagnostics.js";
export { DiagnosticsSink, NO_DIAGNOSTICS } from "./_diagnostics.js";
export type { Logger } from "./_logger.js";
