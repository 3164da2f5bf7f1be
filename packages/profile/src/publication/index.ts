// Room publication/ — a publication and what it leaves: plan the changes
// on the base (pure: _plan.ts), derive the routes, catalog and parts
// (_derive.ts, _derive-carried.ts, _catalog.ts, _parts.ts,
// _cached-routes.ts), commit the revision atomically (_commit.ts) and
// record the files it wrote as checked (_checked-files.ts); then read
// it back (_published-revisions.ts, _revision-check.ts), read it as
// projections (_revision-projections.ts) and check its caches
// (_repair.ts). _apply.ts runs the steps. Imports every room below it.
//
// Steps (publish in _apply.ts):
//   1. read what the changes name     packages, sources, rollback targets
//   2. planChange / candidateOf       the candidate revision, or the refusal
//   3. RevisionProjections.derive     routes, catalog, tool index, parts
//   4. check tools and endpoints      sizes, client-fit names, endpoint pages
//   5. storePackage                   the new packages
//   6. commitRevision                 files, then `active`, under the lock
//   7. recordCommitted                the route check record of what it wrote

export type { Publication, PublicationContext, PublishOptions } from "./_apply.js";
export { publish } from "./_apply.js";
export type { ActiveRoutes } from "./_cached-routes.js";
export { readActiveRoutes } from "./_cached-routes.js";
export type { LockOptions } from "./_commit.js";
export { publicationLock } from "./_commit.js";
export type { ProfileChange } from "./_plan.js";
export { PublishedRevisions } from "./_published-revisions.js";
export type { RouteCacheState } from "./_repair.js";
export { checkRouteCache } from "./_repair.js";
export { RevisionProjections } from "./_revision-projections.js";
