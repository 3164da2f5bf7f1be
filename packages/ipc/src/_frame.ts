import { createHmac, timingSafeEqual } from "node:crypto";
import { IpcError } from "./_errors.js";
import { IPC_MAX_FRAME_BYTES, IPC_PROTOCOL } from "./_limits.js";

/** Direction byte bound into each MAC: host → child. */
export const HOST_TO_CHILD = 0x01;
/** Direction byte bound into each MAC: child → host. */
export const CHILD_TO_HOST = 0x02;
export type Direction = typeof HOST_TO_CHILD | typeof CHILD_TO_HOST;

/** length (u32 BE) ‖ sequence (u32 BE) ‖ HMAC-SHA256 (32 bytes). */
export const FRAME_HEADER_BYTES = 40;
const MAC_BYTES = 32;
const MAC_PREFIX = Buffer.from(`${IPC_PROTOCOL}\u0000`, "latin1");
const MAX_SEQUENCE = 0xffff_ffff;

export function frameMac(
  secret: Uint8Array,
  direction: Direction,
  sequence: number,
  payload: Uint8Array,
): Buffer {
  const head = Buffer.allocUnsafe(5);
  head[0] = direction;
  head.writeUInt32BE(sequence, 1);
  return createHmac("sha256", secret).update(MAC_PREFIX).update(head).update(payload).digest();
}

/** One authenticated frame ready to write. */
export function encodeFrame(
  secret: Uint8Array,
  direction: Direction,
  sequence: number,
  payload: Uint8Array,
): Buffer {
  if (payload.length === 0 || payload.length > IPC_MAX_FRAME_BYTES) {
    throw new IpcError(
      "frame_too_large",
      `cannot send a frame of ${payload.length} bytes; expected 1 to ${IPC_MAX_FRAME_BYTES}`,
    );
  }
  if (sequence > MAX_SEQUENCE) throw new IpcError("invalid_state", "sequence numbers exhausted");
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  header.writeUInt32BE(payload.length, 0);
  header.writeUInt32BE(sequence, 4);
  frameMac(secret, direction, sequence, payload).copy(header, 8);
  return Buffer.concat([header, payload]);
}

/**
 * Incremental reader of authenticated frames from one direction. Bytes are
 * kept as received chunks and joined only when a whole frame is present, so
 * a frame costs one copy; a length prefix over the limit is rejected as soon
 * as its four bytes are in, before anything of that size is held.
 */
export class FrameReader {
  #chunks: Buffer[] = [];
  #buffered = 0;
  #expected = 0;
  #need = -1;
  #failed = false;
  readonly #secret: Uint8Array;
  readonly #direction: Direction;

  constructor(secret: Uint8Array, direction: Direction) {
    this.#secret = secret;
    this.#direction = direction;
  }

  /** Bytes received but not yet part of a complete frame. */
  get pending(): number {
    return this.#buffered;
  }

  /**
   * Feeds bytes and returns the payloads of the complete frames, in order.
   * Throws {@link IpcError} at the first bad frame; use {@link next} to act on
   * each good frame before a later one in the same chunk fails.
   */
  push(chunk: Buffer): Buffer[] {
    this.append(chunk);
    const out: Buffer[] = [];
    for (let p = this.next(); p !== undefined; p = this.next()) out.push(p);
    return out;
  }

  /** Buffers bytes without reading frames. */
  append(chunk: Buffer): void {
    if (this.#failed) throw new IpcError("invalid_state", "the frame reader already failed");
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
  }

  /** The next complete frame's payload, or `undefined` until more bytes arrive. Throws {@link IpcError}. */
  next(): Buffer | undefined {
    if (this.#failed) throw new IpcError("invalid_state", "the frame reader already failed");
    try {
      if (this.#need < 0) {
        if (this.#buffered < 4) return undefined;
        const length = this.#peekLength();
        if (length === 0) throw new IpcError("malformed_frame", "a frame has an empty payload");
        if (length > IPC_MAX_FRAME_BYTES) {
          throw new IpcError(
            "frame_too_large",
            `a frame announces ${length} payload bytes; the limit is ${IPC_MAX_FRAME_BYTES}`,
          );
        }
        this.#need = FRAME_HEADER_BYTES + length;
      }
      if (this.#buffered < this.#need) return undefined;
      const payload = this.#verify(this.#take(this.#need));
      this.#need = -1;
      return payload;
    } catch (error) {
      this.#failed = true;
      this.#chunks = [];
      throw error;
    }
  }

  #peekLength(): number {
    const first = this.#chunks[0]!;
    if (first.length >= 4) return first.readUInt32BE(0);
    return Buffer.concat(this.#chunks, 4).readUInt32BE(0);
  }

  #take(n: number): Buffer {
    const joined =
      this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#buffered);
    const frame = joined.subarray(0, n);
    const rest = joined.subarray(n);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#buffered = rest.length;
    return frame;
  }

  #verify(frame: Buffer): Buffer {
    const sequence = frame.readUInt32BE(4);
    const mac = frame.subarray(8, 8 + MAC_BYTES);
    const payload = frame.subarray(FRAME_HEADER_BYTES);
    const expected = frameMac(this.#secret, this.#direction, sequence, payload);
    if (!timingSafeEqual(mac, expected)) {
      throw new IpcError(
        "bad_mac",
        `frame ${this.#expected} fails its HMAC check (forged, corrupted or keyed with another secret)`,
      );
    }
    if (sequence !== this.#expected) {
      throw new IpcError(
        "out_of_sequence",
        `frame carries sequence number ${sequence}; expected ${this.#expected} (replayed or reordered)`,
      );
    }
    this.#expected++;
    return payload;
  }
}
