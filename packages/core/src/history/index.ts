// The history: past runs read back from the journal, for `runs list`,
// `runs show` and `runs tail --follow`. It adds no record (a segment read
// without a sound index gets one, written by the journal room). Imports the
// journal room only.
//
// 1. _runs.ts            list the newest runs that match (listRuns), or find one (findRun)
// 2. _run-hits.ts        what a listing found; a newer segment's view of the same call wins
// 3. _timed-runs.ts      a time window, read from an indexed segment's newest blocks
// 4. _placed-records.ts  records read from byte ranges of a segment, folded into runs
// 5. _follow.ts          the journal followed as it is written (followRuns)
//
// The door: no other room of the core uses the history; the package entry
// (src/index.ts) exports listRuns, findRun and followRuns from their files.
export {};
