// Where a command line's routes come from, and what its words name. Its
// steps: development links linked again when their directories changed
// (`_devlinks.ts`); the active revision's route table read — through the
// verified route cache's fast path, only the part the words need
// (`_fastpath.ts`), else from @rukh/profile (`_table.ts`) — as a source that
// reads each command's full route only when asked (`_source.ts`); and the
// index of its paths, aliases and the brand's built-ins, which resolves the
// words to a command, a group, the root or the nearest path
// (`_route-index.ts`). It imports the declarations and output rooms.

export { linkAgain } from "./_devlinks.js";
export { cachedRoutes, stateDirOf } from "./_fastpath.js";
export type { Entry, GroupEntry, Resolution, Target } from "./_route-index.js";
export { RouteIndex } from "./_route-index.js";
export type { PublishedDescriptor, RouteHead, RouteSource } from "./_source.js";
export { tableSource } from "./_source.js";
export type { LoadedTable } from "./_table.js";
export { focusOf, loadTable, NO_COMMANDS } from "./_table.js";
