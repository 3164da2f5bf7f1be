// The same echo as the bench baseline, but as an ES module that loads what the
// runtime cannot avoid (node:crypto and @rukh/json): the floor for any runtime
// built on this package's dependencies.
import "node:crypto";
import { Socket } from "node:net";
import "@rukh/json";

const s = new Socket({ fd: 3, readable: true, writable: true });
let b = Buffer.alloc(0);
s.on("data", (c) => {
  b = Buffer.concat([b, c]);
  if (b.length >= 4 && b.length >= 4 + b.readUInt32BE(0))
    s.end(b.subarray(0, 4 + b.readUInt32BE(0)));
});
