"use strict";
// A held command process: Node and Rukh's own code only, started ahead of a
// call. Nothing of the command is loaded until the host hands it an
// admitted, journaled invocation: on fd 4 (the hold pipe) this says "R" once
// it is ready, then waits for the host's "G", closes the pipe and runs the
// command's program (argv[2] onwards) as Node would have run it first: as the
// main module, with the same argv. The program then meets its host on fd 3 as
// any command does (or finds its runtime already did). Anything else on the
// hold pipe, or its end, ends this process before any of the command runs.
// See docs/ipc.md.
//
// While it waits it loads what every command loads first, the child runtime
// the package vendors as @rukh/ipc, and lets it answer the host's handshake;
// but only when those bytes are exactly this runtime's own
// (dist/runtime/index.js beside this file), so that what runs before the
// call is Rukh's code and never the package's. Nothing of the package is
// resolved ahead either: the resolver is warmed on this package's own files.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

const HOLD_FD = 4;
const EXIT_RELEASE_FAILED = 2;

/** The package's runtime, when it is byte for byte this one; else nothing to load. */
function ownRuntime() {
  try {
    const vendored = require("node:module").createRequire(process.argv[2]).resolve("@rukh/ipc");
    const own = readFileSync(join(__dirname, "..", "dist", "runtime", "index.js"));
    return own.equals(readFileSync(vendored)) ? require("node:url").pathToFileURL(vendored) : null;
  } catch {
    return null;
  }
}

async function hold() {
  const runtime = ownRuntime();
  // Rukh's own runtime answers the host's handshake while the process waits.
  if (runtime !== null) (await import(runtime.href)).prepareCommandProcess?.();
  // Node's own work that the first steps after the release would do: the
  // resolver's code (see resolve-ahead.mjs), and process.stderr, which
  // closing the hold pipe creates.
  await import("./resolve-ahead.mjs").catch(() => {});
  process.stderr;
  const { Socket } = require("node:net");
  const pipe = new Socket({ fd: HOLD_FD, readable: true, writable: true });
  const failed = () => process.exit(EXIT_RELEASE_FAILED);
  pipe.on("error", failed);
  pipe.on("end", failed);
  pipe.once("data", (chunk) => {
    if (chunk.length !== 1 || chunk[0] !== 0x47) return failed();
    pipe.removeListener("end", failed);
    pipe.destroy();
    process.argv.splice(1, 1);
    require("node:module").runMain();
  });
  pipe.write("R");
}

hold().catch(() => process.exit(EXIT_RELEASE_FAILED));
