/**
 * Most bytes of one invocation's diagnostics (child stdout, stderr and `log`
 * frames together) written to the owner's log: 64 KiB. The rest is counted in
 * `droppedBytes` while the streams keep being drained.
 *
 * @example
 * if (outcome.diagnostics.droppedBytes > 0) console.warn(`diagnostics cut at ${DIAGNOSTICS_MAX_BYTES} bytes`);
 */
export const DIAGNOSTICS_MAX_BYTES = 65_536;

/**
 * Milliseconds a command has, after its cancel frame, to finish on its own
 * before its process group gets SIGTERM.
 *
 * @example
 * CANCEL_GRACE_MS; // 1000
 */
export const CANCEL_GRACE_MS = 1_000;

/**
 * Milliseconds between SIGTERM and SIGKILL of a command's process group.
 *
 * @example
 * TERMINATE_GRACE_MS; // 500
 */
export const TERMINATE_GRACE_MS = 500;

/**
 * Milliseconds the core waits, after the command process exited and its
 * process group was killed, for its stdout, stderr and channel to close.
 *
 * @example
 * CLEANUP_WAIT_MS; // 2000
 */
export const CLEANUP_WAIT_MS = 2_000;

/**
 * Largest journal segment read or archived whole: 64 MiB (live segments roll
 * over at 4 MiB, archive segments close at 8 MiB). `readJournal` fails closed
 * on a larger one with `journal_too_large` rather than reading it in part;
 * start-up moves it to `journal/quarantine/` instead.
 *
 * @example
 * JOURNAL_MAX_BYTES; // 67108864
 */
export const JOURNAL_MAX_BYTES = 67_108_864;

/**
 * Largest index file of an archive segment that is read, in bytes: 16 MiB.
 * A larger one is not read (nor trusted): its segment is read instead, as
 * when it has no index.
 *
 * @example
 * JOURNAL_INDEX_MAX_BYTES; // 16777216
 */
export const JOURNAL_INDEX_MAX_BYTES = 16_777_216;

/**
 * Largest journal record (one line, newline excluded), in bytes: 8 KiB.
 *
 * @example
 * JOURNAL_RECORD_MAX_BYTES; // 8192
 */
export const JOURNAL_RECORD_MAX_BYTES = 8_192;

/** The largest canonical JSON of inputs a start record keeps when the owner records inputs. */
export const RECORDED_INPUTS_MAX_BYTES = 4_096;

/** How long a command process started ahead of a call waits for one before it ends. */
export const READY_PROCESS_IDLE_MS = 60_000;

/**
 * How many processes one launch keeps ready: two, so that calls made back to
 * back find one whose start is at least a call old.
 */
export const READY_PROCESSES_PER_LAUNCH = 2;

/**
 * Milliseconds between two sweeps for lost hosts by a host that serves on
 * (an MCP server, see `sweepLostHosts`): 2 s. A host that dies leaves its
 * calls open; a host that lives on the same state directory finalizes them
 * `execution_failed`/`host_lost` at its next sweep, as the next start would.
 *
 * @example
 * LOST_HOST_SWEEP_MS; // 2000
 */
export const LOST_HOST_SWEEP_MS = 2_000;
