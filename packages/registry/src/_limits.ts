/**
 * Largest package document (packument) read from a registry: 16 MiB. Its
 * abbreviated form, which is asked for, is far smaller for any extension.
 */
export const PACKUMENT_MAX_BYTES = 16_777_216;

/**
 * The longest one registry request may take, headers and body, redirects
 * and npm's retries included: npm's `fetch-timeout` (5 minutes unless
 * configured), never more than this: 10 minutes.
 */
export const FETCH_TOTAL_MAX_MS = 600_000;

/**
 * The longest a registry request may go without receiving a byte, before
 * its headers or between two chunks of its body: npm's `fetch-timeout`,
 * never more than this: 30 seconds.
 */
export const FETCH_IDLE_MAX_MS = 30_000;

/** Most redirects one registry request follows. */
export const FETCH_MAX_REDIRECTS = 10;
