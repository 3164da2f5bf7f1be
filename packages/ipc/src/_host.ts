// Spawning a managed command and running the host side of its channel: the
// steps in order (spawn, open the channel, listen, hand over the secret); the
// protocol itself is _host-channel.ts.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import { IpcError } from "./_errors.js";
import { HostChannel } from "./_host-channel.js";
import type { CommandProcess, SpawnCommandProcessOptions } from "./_host-model.js";
import {
  IPC_CHANNEL_FD,
  IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS,
  IPC_HOLD_TIMEOUT_MS,
  IPC_NONCE_BYTES,
  IPC_SECRET_BYTES,
} from "./_limits.js";
import { spawnChild } from "./_spawn.js";

/**
 * Spawns a managed command with a private channel on its fd 3, writes the
 * per-invocation secret as the first bytes on that channel, and runs the host
 * side of protocol `rukh.ipc/1`. Killing the process (or its group) stays with
 * the caller; this only reports what the channel saw.
 *
 * @example
 * const proc = spawnCommandProcess({ program: process.execPath, args: ["dist/cmd.js"], detached: true });
 * proc.invoke({ invocationId: "i1", command: "acme.x/hello", inputs: { name: "Ada" },
 *   explicitInputIds: ["name"], remainingMs: 30_000, features: [] });
 * const done = await proc.completion; // { type: "completion", outcome: "succeeded", commandResult: … }
 */
export function spawnCommandProcess(options: SpawnCommandProcessOptions): CommandProcess {
  const secret = randomBytes(IPC_SECRET_BYTES);
  const hostNonce = randomBytes(IPC_NONCE_BYTES);
  const child = spawnChild(options);
  const channel = new HostChannel({
    child,
    secret,
    hostNonce,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS,
    holdTimeoutMs:
      options.held === true ? (options.holdTimeoutMs ?? IPC_HOLD_TIMEOUT_MS) : undefined,
    onLog: options.onLog,
    onProgress: options.onProgress,
  });
  listen(child, channel, options.program);
  // Without a pid the spawn failed; its "error" event reports spawn_failed.
  if (child.pid !== undefined) {
    channel.open();
    if (channel.hold === undefined) channel.begin();
  }
  return {
    child,
    ready: channel.ready,
    completion: channel.completion,
    closed: channel.closed,
    hold: channel.hold?.api,
    invoke: (request) => channel.invoke(request),
    cancel: (cause) => channel.cancel(cause),
  };
}

const EXIT_DRAIN_MS = 200;

/** Routes the socket's and the child's events to the channel; each way they end closes it. */
function listen(child: ChildProcess, channel: HostChannel, program: string): void {
  const socket = child.stdio[IPC_CHANNEL_FD] as Socket;
  socket.on("data", (chunk: Buffer) => channel.receiveBytes(chunk));
  socket.on("end", () => channel.ended());
  socket.on("error", (error) => {
    channel.close(
      new IpcError("channel_error", `channel I/O failed: ${error.message}`, { cause: error }),
    );
  });
  socket.on("close", () => channel.close(undefined));
  child.on("error", (error) => {
    channel.close(
      new IpcError("spawn_failed", `cannot run ${program}: ${error.message}`, { cause: error }),
    );
  });
  // A descendant that inherited the channel can keep it open after the child
  // exits; give buffered frames a moment to arrive, then stop waiting.
  child.on("exit", () => channel.drainAfterExit(EXIT_DRAIN_MS));
}
