// Where the mcp group's files, still at the admin root until they move to
// admin/mcp/, find what the kit room (kit/) now holds; the other groups
// import kit/index.js. Remove this file once those files import the kit.

export type { FailureDetail } from "./kit/index.js";
export {
  failed,
  OK,
  REFUSED,
  Refusal,
  STATE,
  StateProblem,
  USAGE,
  UsageError,
} from "./kit/index.js";
