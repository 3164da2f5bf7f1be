// The command process: how a call's program is counted, planned, confined,
// started (or handed over ready) and watched until it is gone. It imports no
// other room of the core.
//
//  1. _slots.ts        take one of a preset's concurrency slots, or none
//  2. _launch.ts       plan the launch: program, arguments, environment, limits
//  3. _confinement.ts  what this machine can enforce, and the sandbox around a plan
//  4. _probe-cache.ts  the confinement probe's answers, kept between processes
//  5. _trusted.ts      where a helper program (bwrap, ps) may be run from
//  6. _uids.ts         a transient uid for one strict command of a root host
//  7. _fds.ts          the descriptors a child would inherit
//  8. _ready.ts        start the process now, or hand over one started ahead
//  9. _watchdog.ts     kill the command when its host dies
// 10. _tree.ts         one process by pid and start time; end its whole tree
//
// The door: what the other rooms of the core use from here.
export type { Confinement } from "./_confinement.js";
export { detectConfinement, strictHome } from "./_confinement.js";
export { inheritableDescriptors } from "./_fds.js";
export type { LaunchPlan, LaunchRequest, ResourceLimits } from "./_launch.js";
export { launchPlan, STRICT_UID } from "./_launch.js";
export type { Launch, ProcessHooks, ProcessRequest } from "./_ready.js";
export { launchNow, ReadyProcesses } from "./_ready.js";
export { acquireSlot } from "./_slots.js";
export { killTree, processStartTime } from "./_tree.js";
export { leaseUid } from "./_uids.js";
export type { Watchdog } from "./_watchdog.js";
export { startWatchdog } from "./_watchdog.js";
