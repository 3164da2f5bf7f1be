// What the CLI says about its commands without running one. Its steps: the
// commands every brand has — `help`, `completion` and the hidden
// `__complete` the scripts call (`_intrinsics.ts`); the help text of the
// CLI, a group or a command, one generator for an extension command and a
// declared built-in (`_help.ts`); the completion script and its candidates
// (`_completion.ts`); and an unknown path answered with the nearest known
// one (`_unknown.ts`). It imports the routes, declarations and output rooms.

export type { CompletionShell } from "./_completion.js";
export { COMPLETION_SHELLS, completionScript } from "./_completion.js";
export { help, INTRINSIC, intrinsics } from "./_intrinsics.js";
export { unknownCommand } from "./_unknown.js";
