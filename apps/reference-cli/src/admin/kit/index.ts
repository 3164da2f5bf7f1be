// What every administrative command shares, the room every group stands
// on. Its steps, in the order a command meets them: its inputs declared in
// the descriptor's input format and read back typed (`_inputs.ts`); its
// body guarded and run against the state directory, printing for people or
// scripts, the owner's files read bounded, presets by name
// (`_command.ts`); an edit started from the active revision and published
// compare-and-set on it (`_current.ts`); and a failure reported with its
// exit code (`_failure.ts`) and the runnable line that shows the way on
// (`_recovery.ts`). It imports no other room.

export type { AdminBody, AdminOptions, Profile } from "./_command.js";
export {
  ENDPOINT_OR_PRESET,
  guard,
  loadProfile,
  note,
  plural,
  presetOf,
  print,
  readOwnerFile,
} from "./_command.js";
export type { ConfigEdit, Current } from "./_current.js";
export { candidates, current, initialConfig, publishConfig, reported } from "./_current.js";
export type { FailureDetail } from "./_failure.js";
export {
  failed,
  OK,
  REFUSED,
  Refusal,
  STATE,
  StateProblem,
  USAGE,
  UsageError,
} from "./_failure.js";
export { arg, args, bool, count, flag, many, oneOf, text, texts } from "./_inputs.js";
