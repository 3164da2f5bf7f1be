// @rukh/profile/route-cache: the light read side that help and completion
// load — where the state directory is, whether it can be trusted, and the
// active revision's route cache, read and checked with nothing but node:fs,
// node:path and a hash. Any export added here becomes public API and must
// stay as light: it imports the routes room and nothing else.

export type {
  BucketLine,
  RouteCacheRead,
  RouteHead,
  RouteSet,
  StateDirCheckOptions,
  StateDirProblem,
} from "./routes/index.js";
export {
  FOREIGN_STATE_VARIABLES,
  REVISION_ID,
  REVISION_MAX_BYTES,
  ROUTES_MAX_BYTES,
  readFileAtMost,
  readRouteCache,
  resolveStateDir,
  stateDirMessage,
  stateDirProblems,
  stateDirVariable,
} from "./routes/index.js";
