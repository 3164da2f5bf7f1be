// The journal: every call's records on disk, written before the call's process
// starts and before its outcome is delivered, kept in segments, archived with
// an index, pruned by retention and recovered after a host is lost. Imports
// the process room (to end a lost host's process trees), diagnostics and the
// contract.
//
//  1. _journal.ts        the records and their segments: read, parsed, named
//  2. _journal-writer.ts one live segment file: appended, flushed (one flush for concurrent calls)
//  3. _final-reserve.ts  disk set aside for the finals a host still owes
//  4. _host-journal.ts   one host's live segment parts: rolled over, then archived in order
//  5. _archive.ts        a full segment archived beside its index; retention as one begins
//  6. _retention.ts      which old segments age retention may delete (a pure decision)
//  7. _run-model.ts      a run: one invocation's records folded, and a listing's filter
//  8. _journal-index.ts  an archive segment's index: loaded, checked, read header first
//  9. _index-body.ts     what an index says of its segment's records
// 10. _index-file.ts     the index file, byte by byte
// 11. _index-ids.ts      the ids of a segment: a sorted list and a filter
// 12. _recovery.ts       finish the calls of hosts that are gone; repair a damaged journal
// 13. _results.ts        the validated results of calls, kept beside the journal to be read again
// 14. _tasks.ts          task ids recorded beside the journal: the call each names, and who made it
// 15. _whole-file.ts     a small private file written whole or not at all
//
// The door: what the other rooms of the core use from here.
export { ownerRetention } from "./_archive.js";
export { HostJournal } from "./_host-journal.js";
export { idHashes, mayHold } from "./_index-ids.js";
export type { JournalRecord } from "./_journal.js";
export {
  inputsFields,
  journalPaths,
  parseSegment,
  readingFile,
  segmentNames,
} from "./_journal.js";
export type { IndexDetail, SegmentIndex, SegmentStamp } from "./_journal-index.js";
export {
  holds,
  indexRead,
  loadIndex,
  mayMatch,
  readStamped,
  readWhole,
  spanOf,
  timedBlocks,
  timedRanges,
} from "./_journal-index.js";
export type { RecoveryContext } from "./_recovery.js";
export { recoverLostHosts } from "./_recovery.js";
export type { KeptResult, ResultLimits } from "./_results.js";
export {
  dropKeptResults,
  pruneResults,
  RESULTS_MAX_AGE_DAYS_DEFAULT,
  RESULTS_MAX_BYTES_DEFAULT,
  ResultKeeper,
  readKeptResult,
  resultLimitsOf,
  resultsDir,
} from "./_results.js";
export type { Mutable, RunFilter, RunSummary } from "./_run-model.js";
export { absorb, matches, when } from "./_run-model.js";
