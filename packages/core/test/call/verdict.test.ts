import { IpcError, type IpcErrorCode } from "@rukh/ipc";
import { removeDir, tempDir } from "@rukh/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { decide, type ManagedEnd } from "../../src/call/_verdict.js";
import { DiagnosticsSink } from "../../src/diagnostics/_diagnostics.js";

// The verdict of a managed call that got no completion, as a table: a process
// that ran on after its channel ended and was killed by the core is judged by
// the channel; one that exited on its own, by its exit; a cancel wins.

const work = tempDir("rukh-verdict-");
const sink = new DiagnosticsSink(work);
afterAll(() => {
  sink.close();
  removeDir(work);
});

const LIMITS = { memoryBytes: 1, processes: 1, openFiles: 1, fileSizeBytes: 1 };
const error = (code: IpcErrorCode) => new IpcError(code, code);
const killed = { code: null, signal: "SIGKILL" } as const;

function end(over: Partial<ManagedEnd>): ManagedEnd {
  return {
    cause: undefined,
    completion: undefined,
    checked: { ok: true },
    exit: killed,
    spawnError: undefined,
    channelError: undefined,
    cleanedUp: true,
    greeted: true,
    channelLost: undefined,
    storeCorrupt: undefined,
    ...over,
  };
}

describe("a managed call without a completion", () => {
  const closed = error("closed_before_completion");
  const silent = error("handshake_timeout");
  const forged = error("bad_mac");
  it.each([
    [
      "channel closed, process killed by the core",
      end({ channelError: closed, channelLost: closed }),
      "execution_failed/protocol_error",
      /closed its channel without a completion/,
    ],
    [
      "no hello in time, process killed by the core",
      end({ channelError: silent, channelLost: silent, greeted: false }),
      "execution_failed/protocol_error",
      /did not answer the host's handshake/,
    ],
    [
      "protocol broken, process killed by the core",
      end({ channelError: forged, channelLost: forged }),
      "execution_failed/protocol_error",
      /broke the host protocol/,
    ],
    [
      "channel closed, process exited 3 on its own",
      end({ channelError: closed, exit: { code: 3, signal: null } }),
      "execution_failed/crashed",
      /ended without reporting a completion/,
    ],
    [
      "channel closed, process exited 0 on its own",
      end({ channelError: closed, exit: { code: 0, signal: null } }),
      "execution_failed/no_completion",
      /exited without reporting a completion/,
    ],
    [
      "a cancel accepted before the channel ended",
      end({ cause: "client", channelError: closed, channelLost: closed }),
      "cancelled/client_cancel",
      /cancelled/,
    ],
  ] as const)("%s → %s", (_what, ended, expected, message) => {
    const o = decide(sink.invocation("i", "fx.main/x", 1_024), LIMITS, ended);
    expect(`${o.outcome}/${o.reason}`).toBe(expected);
    expect(o.message).toMatch(message);
  });
});
