// The host's end of a held process's hold pipe: the process says it runs,
// the host lets it go on, and anything else on the pipe fails the hold.
import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { IpcError } from "./_errors.js";
import type { ProcessHold } from "./_host-model.js";
import { IPC_HOLD_FD } from "./_limits.js";

/** A hold as the channel sees it: the caller's half, whether it was released, and its end. */
export interface HostHold {
  readonly api: ProcessHold;
  readonly released: boolean;
  /** Stops watching the pipe; a hold not yet released fails with `hold_failed`. */
  end(): void;
}

/**
 * The host's end of a hold pipe: `confirmed` once the process says "R",
 * `release()` answers "G" and ends the pipe. Whatever else happens on the
 * pipe before the release (it ends, says more, the process exits, nothing
 * comes in time) fails the hold and closes the process's channel.
 */
export function holdOf(
  child: ChildProcess,
  timeoutMs: number,
  fail: (error: IpcError) => void,
  begin: () => void,
): HostHold {
  const pipe = child.stdio[IPC_HOLD_FD] as Socket | null;
  let state: "waiting" | "confirmed" | "released" | "ended" = "waiting";
  let confirm!: () => void;
  let reject!: (e: IpcError) => void;
  const confirmed = new Promise<void>((res, rej) => {
    confirm = res;
    reject = rej;
  });
  confirmed.catch(() => {});
  const failed = (why: string) => {
    if (state === "released" || state === "ended") return;
    state = "ended";
    clearTimeout(timer);
    const error = new IpcError("hold_failed", why);
    reject(error);
    pipe?.destroy();
    fail(error);
  };
  const timer = setTimeout(
    () => failed(`the held process did not say it runs within ${timeoutMs} ms`),
    timeoutMs,
  );
  pipe?.on("data", (chunk: Buffer) => {
    if (state === "waiting" && chunk.length === 1 && chunk[0] === 0x52) {
      state = "confirmed";
      clearTimeout(timer);
      confirm();
    } else failed("the held process said something other than that it runs");
  });
  pipe?.on("end", () => failed("the held process closed its hold pipe"));
  pipe?.on("error", (e) => failed(`the hold pipe failed: ${e.message}`));
  child.once("exit", () => failed("the held process ended before its release"));
  return {
    api: {
      confirmed,
      release() {
        if (state !== "confirmed")
          throw new IpcError(
            "invalid_state",
            `the process cannot be released: its hold is ${state}`,
          );
        state = "released";
        pipe?.end("G");
        begin();
      },
    },
    get released() {
      return state === "released";
    },
    end() {
      clearTimeout(timer);
      if (state === "waiting" || state === "confirmed") {
        state = "ended";
        reject(new IpcError("hold_failed", "the channel closed before the release"));
      }
      pipe?.destroy();
    },
  };
}
