// Room routes/ — the light read side that help and completion load: where
// the state directory is, whether it can be trusted, and the active
// revision's CLI route cache, with nothing but node:fs, node:path, node:os
// and a hash (the `@rukh/profile/route-cache` entry is this room's names).
// Every file here must stay that light; it imports only the model's types.
//
// Steps, as help runs them:
//   1. resolveStateDir (_statedir.ts)            where the state directory is
//   2. stateDirProblems (_statedir-check.ts)     whether it can be trusted
//   3. readFileAtMost (_bounded-reads.ts)        `active` and the revision, bounded
//   4. readRouteCache (_route-cache.ts)          the header, checked against the revision
//   5. RouteBuckets (_route-buckets.ts)          the bucket and part line a word needs

export { readFileAtMost } from "./_bounded-reads.js";
export type { BucketLine, RouteHead, RouteSet } from "./_route-buckets.js";
export { PART_MAX_BYTES, partLine, partPath, routeLineDigest } from "./_route-buckets.js";
export type { RouteCacheRead } from "./_route-cache.js";
export {
  REVISION_ID,
  REVISION_MAX_BYTES,
  ROUTES_FORMAT,
  ROUTES_MAX_BYTES,
  readRouteCache,
  routesDigestOf,
} from "./_route-cache.js";
export {
  readStamped,
  recordChecked,
  recordedStamps,
  routeCheckDir,
  routeCheckPath,
  stampOf,
} from "./_route-check.js";
export type { StateDirOptions } from "./_statedir.js";
export {
  brandStateOptions,
  FOREIGN_STATE_VARIABLES,
  journalDirVariable,
  resolveStateDir,
  stateDirVariable,
} from "./_statedir.js";
export type { StateDirCheckOptions, StateDirProblem } from "./_statedir-check.js";
export {
  ownershipProblem,
  pathProblems,
  stateDirMessage,
  stateDirProblems,
} from "./_statedir-check.js";
