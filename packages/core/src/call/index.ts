// A call: one request from its admission to its one recorded outcome, as
// named steps. Imports the journal, process, diagnostics and contract rooms.
//
//  1. _invoke.ts            the steps in order: admit, refuse, take a slot, journal, run, journal
//  2. _admit-request.ts     read what admission decides from: revision, projection, package, probe
//  3. _admission.ts         decide (pure): a launch plan, or a rejection with its reason
//  4. _stored-package.ts    the call's stored package, read once per host, checked at every use
//  5. _budget.ts            the call's time: deadline, cancel escalation, the three cancel sources
//  6. _managed-call.ts      run a managed command over the authenticated channel, step by step
//  7. _managed-process.ts   that process's state, and the steps that move and end it
//  8. _passthrough-call.ts  run a passthrough program on the terminal's own stdio
//  9. _verdict.ts           judge: the one outcome from what the process said and how it ended
// 10. _builtin-call.ts      a built-in command: admitted (CLI, owner's authority) and journaled in turn
//
// What the steps share: _core-host.ts (what every call on one core shares, a
// model the host fills) and _execution.ts (what running an admitted call is
// given by its host).
//
// The door: what the host room uses from here.

export { invokeBuiltin } from "./_builtin-call.js";
export type { CoreHost } from "./_core-host.js";
export type { ExecutionContext } from "./_execution.js";
export { invoke } from "./_invoke.js";
export { checkAtHandOver } from "./_stored-package.js";
