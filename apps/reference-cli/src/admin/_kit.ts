// Where the mcp group's files, still at the admin root until they move to
// admin/mcp/, find what the kit room (kit/) now holds; the other groups
// import kit/index.js. Remove this file once those files import the kit.

export type { AdminBody, AdminOptions, Profile } from "./kit/index.js";
export {
  ENDPOINT_OR_PRESET,
  guard,
  loadProfile,
  note,
  OK,
  plural,
  presetOf,
  print,
  REFUSED,
  Refusal,
  readBounded,
  STATE,
  USAGE,
  UsageError,
} from "./kit/index.js";
