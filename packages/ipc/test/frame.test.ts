import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  CHILD_TO_HOST,
  encodeFrame,
  FRAME_HEADER_BYTES,
  FrameReader,
  HOST_TO_CHILD,
} from "../src/_frame.js";
import { IPC_MAX_FRAME_BYTES, IpcError, type IpcErrorCode } from "../src/index.js";
import { codeOf } from "./_helpers.js";

const secret = randomBytes(32);
const payload = (s: string) => Buffer.from(s, "utf8");
const frames = (...texts: string[]) =>
  texts.map((t, i) => encodeFrame(secret, CHILD_TO_HOST, i, payload(t)));

describe("FrameReader", () => {
  it("reassembles frames split at every byte boundary", () => {
    const wire = Buffer.concat(frames('{"a":1}', '{"b":"é"}', "[]"));
    for (let cut = 1; cut < wire.length; cut++) {
      const reader = new FrameReader(secret, CHILD_TO_HOST);
      const out = [...reader.push(wire.subarray(0, cut)), ...reader.push(wire.subarray(cut))];
      expect(out.map((b) => b.toString())).toEqual(['{"a":1}', '{"b":"é"}', "[]"]);
      expect(reader.pending).toBe(0);
    }
  });

  it("rejects an over-limit length as soon as the prefix is in", () => {
    const reader = new FrameReader(secret, CHILD_TO_HOST);
    expect(reader.push(Buffer.from([0xff, 0xff]))).toEqual([]);
    expect(codeOf(() => reader.push(Buffer.from([0xff, 0xff])))).toBe("frame_too_large");
    expect(codeOf(() => reader.push(Buffer.alloc(1)))).toBe("invalid_state");
  });

  const [f0, f1] = frames("{}", "[]") as [Buffer, Buffer];
  const flip = (b: Buffer, at: number) => {
    const c = Buffer.from(b);
    c[at] = (c[at] ?? 0) ^ 1;
    return c;
  };
  const limitPrefix = Buffer.alloc(4);
  limitPrefix.writeUInt32BE(IPC_MAX_FRAME_BYTES + 1, 0);
  it.each<[string, Buffer[], string]>([
    ["a replayed frame", [f0, f0], "out_of_sequence"],
    ["a reordered frame", [f1, f0], "out_of_sequence"],
    ["a flipped payload bit", [flip(f0, FRAME_HEADER_BYTES)], "bad_mac"],
    ["a flipped MAC bit", [flip(f0, 8)], "bad_mac"],
    ["a flipped sequence bit", [flip(f0, 7)], "bad_mac"],
    [
      "a frame for the other direction",
      [encodeFrame(secret, HOST_TO_CHILD, 0, payload("{}"))],
      "bad_mac",
    ],
    [
      "a frame under another secret",
      [encodeFrame(randomBytes(32), CHILD_TO_HOST, 0, payload("{}"))],
      "bad_mac",
    ],
    ["an empty payload", [Buffer.alloc(FRAME_HEADER_BYTES)], "malformed_frame"],
    ["a length one over the limit", [limitPrefix], "frame_too_large"],
  ])("detects %s", (_, chunks, code) => {
    const reader = new FrameReader(secret, CHILD_TO_HOST);
    expect(
      codeOf(() => {
        for (const c of chunks) reader.push(c);
      }),
    ).toBe(code);
  });

  it("accepts a payload of exactly the limit and refuses to send one byte more", () => {
    const big = Buffer.alloc(IPC_MAX_FRAME_BYTES, 0x20);
    const reader = new FrameReader(secret, CHILD_TO_HOST);
    expect(reader.push(encodeFrame(secret, CHILD_TO_HOST, 0, big))[0]?.length).toBe(big.length);
    expect(codeOf(() => encodeFrame(secret, CHILD_TO_HOST, 0, Buffer.alloc(big.length + 1)))).toBe(
      "frame_too_large",
    );
  });
});

describe("IpcError.protocolViolation", () => {
  it.each<[IpcErrorCode, boolean]>([
    ["bad_mac", true],
    ["out_of_sequence", true],
    ["frame_too_large", true],
    ["handshake_timeout", false],
    ["closed_before_completion", false],
    ["spawn_failed", false],
  ])("%s → %s", (code, expected) => {
    expect(new IpcError(code, "x").protocolViolation).toBe(expected);
  });
});
