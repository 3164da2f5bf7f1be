// Ctrl-C and SIGTERM while a command runs: the first cancels (the body sees
// an aborted signal and finishes with the outcome), a second stops waiting.

import { type CliStream, EXIT_CODES } from "../output/index.js";

/** The signal the owner stopped a command with. */
export type OwnerSignal = "SIGINT" | "SIGTERM";

/**
 * Runs `body` with SIGINT/SIGTERM wired to an abort signal; a second signal
 * resolves at once with 130 or 143 (after `onForce`). With `handle` false
 * the process's signals are left alone.
 */
export async function withSignals(
  handle: boolean,
  stderr: CliStream,
  body: (signal: AbortSignal, seen: () => OwnerSignal | undefined) => Promise<number>,
  onForce?: () => void,
): Promise<number> {
  const owner = new AbortController();
  if (!handle) return body(owner.signal, () => undefined);
  let seen: OwnerSignal | undefined;
  let force!: (code: number) => void;
  const forced = new Promise<number>((resolve) => {
    force = resolve;
  });
  const handler = (sig: OwnerSignal) => () => {
    if (seen === undefined) {
      seen = sig;
      stderr.write(`cancelling… (${sig === "SIGINT" ? "Ctrl-C" : sig} again to stop at once)\n`);
      owner.abort();
      return;
    }
    onForce?.();
    force(sig === "SIGTERM" ? EXIT_CODES.terminated : EXIT_CODES.interrupted);
  };
  const onInt = handler("SIGINT");
  const onTerm = handler("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    return await Promise.race([body(owner.signal, () => seen), forced]);
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}
