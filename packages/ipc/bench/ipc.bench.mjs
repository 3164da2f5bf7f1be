import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { spawnCommandProcess } from "../dist/index.js";

const child = fileURLToPath(new URL("./_child.mjs", import.meta.url));

// The baseline: the same kind of spawn (node, fd 3 as a pipe) and one
// length-prefixed frame echoed back, with no secret, MAC, JSON or runtime.
const ECHO = `const s=new (require("net").Socket)({fd:3,readable:true,writable:true});let b=Buffer.alloc(0);
s.on("data",(c)=>{b=Buffer.concat([b,c]);if(b.length>=4&&b.length>=4+b.readUInt32BE(0))s.end(b.subarray(0,4+b.readUInt32BE(0)));});`;

const floor = fileURLToPath(new URL("./_floor.mjs", import.meta.url));

// Both sides start the same Node: a clean environment, not the caller's
// (whose NODE_OPTIONS or CA bundle would slow every start alike and flatten the ratio).
const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

function bareEcho(payload, args = ["-e", ECHO]) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, {
      env: ENV,
      stdio: ["ignore", "ignore", "ignore", "pipe"],
    });
    const pipe = proc.stdio[3];
    const frame = Buffer.alloc(4 + payload.length);
    frame.writeUInt32BE(payload.length, 0);
    payload.copy(frame, 4);
    let got = 0;
    pipe.on("data", (c) => {
      got += c.length;
    });
    pipe.write(frame);
    proc.on("close", (code) =>
      code === 0 && got === frame.length ? resolve() : reject(new Error("echo failed")),
    );
  });
}

async function invoke(command, inputs) {
  const proc = spawnCommandProcess({
    program: process.execPath,
    args: [child],
    env: ENV,
    stdio: ["ignore", "ignore", "ignore"],
  });
  const exited = new Promise((resolve) => proc.child.on("close", resolve));
  proc.invoke({
    invocationId: "bench",
    command,
    inputs,
    explicitInputIds: [],
    remainingMs: 60_000,
    features: [],
  });
  const done = await proc.completion;
  if (done.outcome !== "succeeded") throw new Error("invocation failed");
  await exited;
}

export default async function (suite) {
  await suite.compare("ipc: spawn node, handshake, invoke, completion", {
    baseline: [
      "bare spawn of node -e + one unauthenticated frame echo",
      () => bareEcho(Buffer.from('{"type":"ping"}')),
    ],
    cases: [
      [
        "floor: same echo from an ES module loading node:crypto and @rukh/json",
        () => bareEcho(Buffer.from('{"type":"ping"}'), [floor]),
      ],
      [
        "spawnCommandProcess + runtime: authenticated trivial invocation",
        () => invoke("bench.ipc/noop", {}),
      ],
    ],
    samples: 30,
  });

  const text = "x".repeat(1_048_576 - 200);
  await suite.compare("ipc: 1 MiB frame each way", {
    baseline: [
      "bare spawn of node -e + echo of a 1 MiB unauthenticated frame",
      () => bareEcho(Buffer.from(text)),
    ],
    cases: [
      [
        "authenticated invoke + completion carrying 1 MiB each",
        () => invoke("bench.ipc/echo", { text }),
      ],
    ],
    samples: 20,
  });
}
