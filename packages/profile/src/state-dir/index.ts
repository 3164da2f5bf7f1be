// Room state-dir/ — the state directory's own machinery beneath every
// writer: durable writes (_durable.ts) and the temporary names they use,
// with the debris a crashed writer leaves (_debris.ts); the locks writers
// and hosts hold (_lock.ts); where a host writes (_places.ts); the cursor
// key (_keys.ts); garbage collection (_gc.ts). Where the state directory is
// and whether it is safe are in routes/, which help loads alone.
// Imports model, routes and config.
//
// Steps of a writer:
//   1. stateLocks           take the lock its work needs
//   2. temporaryName        name a staging entry in tmp/
//   3. writeDurable         write it and sync it
//   4. fsyncDir             sync the directory it is renamed into
// and of housekeeping: statePlaces, findTemporaryDebris / removeTemporaryDebris, collect.

export type { TemporaryDebris } from "./_debris.js";
export { findTemporaryDebris, removeTemporaryDebris, temporaryName } from "./_debris.js";
export { fsyncDir, writeDurable } from "./_durable.js";
export type { GcOptions, GcReport } from "./_gc.js";
export { collect } from "./_gc.js";
export { cursorKey } from "./_keys.js";
export type { LockMechanism, NamedLock, StateLocks } from "./_lock.js";
export { holdAbstractLock, SYSTEM_LOCKS, stateLocks } from "./_lock.js";
export type { StatePlaces } from "./_places.js";
export { assertWritable, placesLine, statePlaces } from "./_places.js";
