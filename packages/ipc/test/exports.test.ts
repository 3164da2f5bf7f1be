import { expect, it } from "vitest";

// The built entry is the public surface; a new name here is a new public API.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "CommandFailure",
      "IPC_CHANNEL_ENV",
      "IPC_CHANNEL_FD",
      "IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS",
      "IPC_ERROR_CODES",
      "IPC_HOLD_FD",
      "IPC_HOLD_TIMEOUT_MS",
      "IPC_LIMITS",
      "IPC_MAX_FRAME_BYTES",
      "IPC_PROTOCOL",
      "IpcError",
      "prepareCommandProcess",
      "runCommandProcess",
      "shadowedStdio",
      "spawnCommandProcess",
      "structuredResult",
      "textResult",
    ]
  `);
});
