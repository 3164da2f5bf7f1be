// A host that lives finds the calls of hosts that died: every period it does
// what the next start would (recoverLostHosts), one sweep at a time, until
// its host closes.

import { LOST_HOST_SWEEP_MS } from "../contract/index.js";
import { type RecoveryContext, recoverLostHosts } from "../journal/index.js";

/** A task run again and again (see {@link repeatEvery}). */
export interface Repeating {
  /** No run starts after this; resolves once the run under way, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `task` `periodMs` after the end of its previous run (the first
 * `periodMs` from now), so that two runs never overlap, until stopped. A
 * run that fails is the task's own affair: the next one still comes. The
 * timer is unref'd: it never keeps the process alive.
 */
export function repeatEvery(periodMs: number, task: () => Promise<void>): Repeating {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let run: Promise<void> | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      run = task()
        .catch(() => {})
        .finally(() => {
          run = undefined;
          if (!stopped) schedule();
        });
    }, periodMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await run;
    },
  };
}

/**
 * Every {@link LOST_HOST_SWEEP_MS}, finishes what hosts lost on the state
 * directory left, exactly as a start does: it lists `journal/live/`, tries
 * the liveness lock of each other host that has a segment there, and only
 * for a host whose lock it takes (a host that is gone) kills what it left
 * running and finalizes its open calls `execution_failed`/`host_lost`,
 * logging each. The single file of earlier versions is left to the start:
 * no host of this version writes it. A sweep that fails is logged, and the
 * next one tries again.
 */
export function sweepLostHosts(ctx: RecoveryContext): Repeating {
  return repeatEvery(LOST_HOST_SWEEP_MS, async () => {
    try {
      await recoverLostHosts({ ...ctx, earlierVersions: false });
    } catch (e) {
      ctx.logger.error(
        { err: e },
        `the sweep for lost hosts failed; it runs again in ${LOST_HOST_SWEEP_MS} ms`,
      );
    }
  });
}
