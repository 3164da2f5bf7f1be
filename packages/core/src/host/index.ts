// The host: one invocation core over a state directory, from its start (its
// liveness lock, its journal, the calls lost hosts left open) to its close,
// and what it lends each call it runs. The top room: it imports the call,
// journal, process, diagnostics and contract rooms, and none imports it.
//
// 1. _core.ts            openInvocationHost (each call under the binding it is bound to), and
//                        createInvocationCore (one binding of its own): open, invoke, close
// 2. _host-life.ts       open: lock, journal, diagnostics, recovery, ready processes; close
// 3. _lost-host-sweep.ts while it lives, finish the calls of hosts that died, every period
// 4. _host-execution.ts  the execution context each call's run is handed
//
// The door: no other room of the core uses the host; the package entry
// (src/index.ts) exports both from their file.
export {};
