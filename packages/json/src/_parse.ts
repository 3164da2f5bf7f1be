import { isUtf8 } from "node:buffer";
import { JsonError } from "./_errors.js";

/** A JSON value as the strict reader produces it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object: own enumerable data properties only, `__proto__` included as plain data. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Bounds applied while reading; a breach fails the whole read. */
export interface JsonLimits {
  /** Largest accepted input, in UTF-8 bytes. */
  readonly maxBytes: number;
  /** Deepest accepted nesting of objects and arrays (a bare scalar has depth 0). */
  readonly maxDepth: number;
  /** Most object members plus array elements accepted in the whole document. */
  readonly maxNodes: number;
}

/** Default size limit: 1 MiB. */
export const JSON_MAX_BYTES = 1_048_576;
/** Default nesting limit. */
export const JSON_MAX_DEPTH = 32;
/** Default limit on object members plus array elements, counted over the whole document. */
export const JSON_MAX_NODES = 4_096;
/** The defaults, used for every limit a caller does not set. */
export const DEFAULT_JSON_LIMITS: JsonLimits = Object.freeze({
  maxBytes: JSON_MAX_BYTES,
  maxDepth: JSON_MAX_DEPTH,
  maxNodes: JSON_MAX_NODES,
});

// Recursion depth is bounded by maxDepth; this cap keeps a caller's limit from
// ever reaching the engine's stack size.
const HARD_MAX_DEPTH = 1_000;
const HARD_MAX_BYTES = 0x7fff_ffff;
const SHORT_STRING = 48;
const CONTROL = /[\x00-\x1f]/;
const NON_ASCII = /[\x80-\xff]/;

/** Options for {@link parseJson}. */
export interface ParseJsonOptions {
  /** Tighter or other limits; unset fields take {@link DEFAULT_JSON_LIMITS}. */
  readonly limits?: Partial<JsonLimits>;
  /**
   * `"strict"` (default): an integer literal outside ±(2^53−1) is rejected with
   * `unsafe_integer`, because its value would round silently.
   * `"exact"`: such literals are accepted and every number whose literal is
   * not a short plain integer keeps its source text, readable with
   * {@link numberSourceText}; callers that decode exact values (integers,
   * decimals) must consult it.
   */
  readonly numbers?: "strict" | "exact";
}

/** Result of {@link parseJson}. */
export type JsonParseResult = { ok: true; value: JsonValue } | { ok: false; error: JsonError };

const numberTexts = new WeakMap<object, Map<string | number, string>>();

/**
 * The exact source text of the number stored at `container[key]` when the
 * document was parsed with `numbers: "exact"`, or `undefined` when the number
 * was a plain integer literal of at most 15 digits (whose value is exact).
 *
 * @example
 * const r = parseJson('{"n":1.50}', { numbers: "exact" });
 * if (r.ok) numberSourceText(r.value as object, "n"); // "1.50"
 */
export function numberSourceText(container: object, key: string | number): string | undefined {
  return numberTexts.get(container)?.get(key);
}

function resolveLimits(limits: Partial<JsonLimits> | undefined): JsonLimits {
  if (limits === undefined) return DEFAULT_JSON_LIMITS;
  const resolved = { ...DEFAULT_JSON_LIMITS, ...limits };
  check("maxBytes", resolved.maxBytes, HARD_MAX_BYTES);
  check("maxDepth", resolved.maxDepth, HARD_MAX_DEPTH);
  check("maxNodes", resolved.maxNodes, Number.MAX_SAFE_INTEGER);
  return resolved;

  function check(name: string, value: number, max: number): void {
    if (!Number.isSafeInteger(value) || value < 0 || value > max) {
      throw new JsonError(
        "invalid_limits",
        `limit ${name} is ${String(value)}; expected an integer from 0 to ${max}`,
      );
    }
  }
}

/**
 * Reads untrusted JSON strictly, from UTF-8 bytes or a string.
 *
 * Rejects invalid UTF-8, a byte order mark, duplicate keys (compared after
 * unescaping), lone surrogates, numbers that overflow binary64, unsafe integer
 * literals (unless `numbers: "exact"`), trailing content, and any input over
 * a limit; limits are checked while reading, so an oversized document fails
 * without being built. Never throws for bad input.
 *
 * @example
 * const r = parseJson(Buffer.from('{"jsonrpc":"2.0"}'), { limits: { maxDepth: 8 } });
 * if (r.ok) use(r.value); else report(r.error.code, r.error.offset, r.error.message);
 */
export function parseJson(input: Uint8Array | string, options?: ParseJsonOptions): JsonParseResult {
  const limits = resolveLimits(options?.limits);
  const exact = options?.numbers === "exact";
  let bytes: Buffer;
  if (typeof input === "string") {
    // A UTF-8 encoding is never shorter than the UTF-16 length, so this check
    // is exact as a lower bound and avoids encoding a huge string first.
    if (input.length > limits.maxBytes) return fail(tooLarge(input.length, limits.maxBytes));
    if (!input.isWellFormed()) return fail(loneSurrogateInString(input));
    bytes = Buffer.from(input, "utf8");
  } else {
    bytes =
      input instanceof Buffer
        ? input
        : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  }
  if (bytes.length > limits.maxBytes) return fail(tooLarge(bytes.length, limits.maxBytes));
  try {
    return { ok: true, value: new Reader(bytes, limits, exact).document() };
  } catch (error) {
    if (error instanceof JsonError) return fail(error);
    throw error;
  }
}

function fail(error: JsonError): JsonParseResult {
  return { ok: false, error };
}

function tooLarge(size: number, max: number): JsonError {
  return new JsonError(
    "too_large",
    `input is at least ${size} bytes; expected at most ${max}`,
    max,
  );
}

function loneSurrogateInString(input: string): JsonError {
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = input.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    } else if (c < 0xdc00 || c > 0xdfff) {
      continue;
    }
    const offset = Buffer.byteLength(input.slice(0, i), "utf8");
    return new JsonError(
      "lone_surrogate",
      "input string holds an unpaired UTF-16 surrogate; expected well-formed Unicode",
      offset,
    );
  }
  /* c8 ignore next */
  throw new Error("unreachable: isWellFormed() was false");
}

enum B {
  Tab = 0x09,
  Lf = 0x0a,
  Cr = 0x0d,
  Space = 0x20,
  Quote = 0x22,
  Plus = 0x2b,
  Comma = 0x2c,
  Minus = 0x2d,
  Dot = 0x2e,
  Zero = 0x30,
  Nine = 0x39,
  Colon = 0x3a,
  UpperE = 0x45,
  LBracket = 0x5b,
  Backslash = 0x5c,
  RBracket = 0x5d,
  LowerE = 0x65,
  LBrace = 0x7b,
  RBrace = 0x7d,
}

class Reader {
  private pos = 0;
  private depth = 0;
  private nodes = 0;
  // Set by number() in exact mode when the literal must be kept; the container
  // that asked for the value records it under its key.
  private pendingText: string | undefined = undefined;
  // Set by plainBytes(): whether the bytes it last read were all ASCII.
  private plainAscii = true;

  constructor(
    private readonly buf: Buffer,
    private readonly limits: JsonLimits,
    private readonly exact: boolean,
  ) {}

  document(): JsonValue {
    const buf = this.buf;
    if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      throw new JsonError(
        "byte_order_mark",
        "input starts with a UTF-8 byte order mark; expected JSON text",
        0,
      );
    }
    const value = this.value();
    this.pendingText = undefined;
    this.skipWhitespace();
    if (this.pos < buf.length) {
      throw new JsonError(
        "trailing_content",
        "unexpected content after the JSON value; expected end of input",
        this.pos,
      );
    }
    return value;
  }

  private skipWhitespace(): void {
    const buf = this.buf;
    let p = this.pos;
    while (p < buf.length) {
      const b = buf[p];
      if (b === B.Space || b === B.Lf || b === B.Cr || b === B.Tab) p++;
      else break;
    }
    this.pos = p;
  }

  private value(): JsonValue {
    this.skipWhitespace();
    const buf = this.buf;
    if (this.pos >= buf.length) throw this.end("a value");
    const b = buf[this.pos]!;
    switch (b) {
      case B.LBrace:
        return this.object();
      case B.LBracket:
        return this.array();
      case B.Quote:
        return this.string();
      case 0x74: // t
        return this.literal("true", true);
      case 0x66: // f
        return this.literal("false", false);
      case 0x6e: // n
        return this.literal("null", null);
      default:
        if (b === B.Minus || (b >= B.Zero && b <= B.Nine)) return this.number();
        throw this.unexpected("a value (object, array, string, number, true, false or null)");
    }
  }

  private literal<T>(word: string, value: T): T {
    const buf = this.buf;
    for (let i = 0; i < word.length; i++) {
      const p = this.pos + i;
      if (p >= buf.length) throw this.end(`"${word}"`, p);
      if (buf[p] !== word.charCodeAt(i)) throw this.unexpected(`"${word}"`, p);
    }
    this.pos += word.length;
    return value;
  }

  private enter(): void {
    if (++this.depth > this.limits.maxDepth) {
      throw new JsonError(
        "too_deep",
        `nesting exceeds ${this.limits.maxDepth} levels; expected a shallower document`,
        this.pos,
      );
    }
  }

  private countNode(): void {
    if (++this.nodes > this.limits.maxNodes) {
      throw new JsonError(
        "too_many_nodes",
        `document has more than ${this.limits.maxNodes} object members and array elements; expected fewer`,
        this.pos,
      );
    }
  }

  /**
   * Enters the container whose opening byte is at `pos`; true when `close`
   * follows at once, the empty container then already left.
   */
  private openEmpty(close: number): boolean {
    this.enter();
    this.pos++;
    this.skipWhitespace();
    if (this.buf[this.pos] !== close) return false;
    this.pos++;
    this.depth--;
    return true;
  }

  /**
   * Reads what follows a member or an element: true at a comma (another
   * follows), false at `close` (the container is left); anything else, or the
   * end of the input, fails expecting `expected`.
   */
  private separator(close: number, expected: string): boolean {
    this.skipWhitespace();
    if (this.pos >= this.buf.length) throw this.end(expected);
    const b = this.buf[this.pos];
    if (b !== B.Comma && b !== close) throw this.unexpected(expected);
    this.pos++;
    if (b === B.Comma) return true;
    this.depth--;
    return false;
  }

  private object(): JsonObject {
    const obj: JsonObject = {};
    if (this.openEmpty(B.RBrace)) return obj;
    const buf = this.buf;
    do {
      this.skipWhitespace();
      if (this.pos >= buf.length) throw this.end("a string key");
      if (buf[this.pos] !== B.Quote) throw this.unexpected("a string key");
      const keyOffset = this.pos;
      const key = this.string();
      if (Object.hasOwn(obj, key)) {
        throw new JsonError(
          "duplicate_key",
          `duplicate object key ${JSON.stringify(key)}; expected unique keys`,
          keyOffset,
        );
      }
      this.skipWhitespace();
      if (this.pos >= buf.length) throw this.end("':'");
      if (buf[this.pos] !== B.Colon) throw this.unexpected("':'");
      this.pos++;
      this.countNode();
      const member = this.value();
      if (key === "__proto__") {
        Object.defineProperty(obj, key, {
          value: member,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else {
        obj[key] = member;
      }
      if (this.pendingText !== undefined) this.record(obj, key);
    } while (this.separator(B.RBrace, "',' or '}'"));
    return obj;
  }

  private array(): JsonValue[] {
    const arr: JsonValue[] = [];
    if (this.openEmpty(B.RBracket)) return arr;
    do {
      this.countNode();
      arr.push(this.value());
      if (this.pendingText !== undefined) this.record(arr, arr.length - 1);
    } while (this.separator(B.RBracket, "',' or ']'"));
    return arr;
  }

  private record(container: object, key: string | number): void {
    let texts = numberTexts.get(container);
    if (texts === undefined) {
      texts = new Map();
      numberTexts.set(container, texts);
    }
    texts.set(key, this.pendingText!);
    this.pendingText = undefined;
  }

  private string(): string {
    const buf = this.buf;
    const start = ++this.pos;
    // Short strings (most keys) are cheapest byte by byte; past this many bytes
    // the native scanners below win.
    const p = this.plainBytes(start, Math.min(buf.length, start + SHORT_STRING));
    if (p < buf.length && buf[p] === B.Quote) return this.closeString(start, p);
    const other = p < buf.length ? this.longString(start) : undefined;
    return other ?? this.byteString(start);
  }

  // The reference reader: byte by byte, exact error offsets. Used for short
  // strings and whenever the native fast path finds something to report.
  private byteString(start: number): string {
    const buf = this.buf;
    const p = this.plainBytes(start, buf.length);
    if (p >= buf.length) throw this.end("'\"' to close the string", p);
    if (buf[p] === B.Backslash) return this.escapedString(start, p, this.plainAscii);
    return this.closeString(start, p);
  }

  // Checks the bytes of a string from `p` on, before `end`, up to a quote or a
  // backslash; returns where it stopped (at `end` or past it when neither came
  // first), with plainAscii telling whether every byte was ASCII.
  private plainBytes(p: number, end: number): number {
    const buf = this.buf;
    let ascii = true;
    while (p < end) {
      const b = buf[p]!;
      if (b === B.Quote || b === B.Backslash) break;
      if (b < 0x20) throw this.control(p);
      if (b < 0x80) p++;
      else {
        p = this.utf8Sequence(p);
        ascii = false;
      }
    }
    this.plainAscii = ascii;
    return p;
  }

  // The string from `start` up to its closing quote at `p`, read past it.
  private closeString(start: number, p: number): string {
    this.pos = p + 1;
    return this.plainAscii
      ? this.buf.toString("latin1", start, p)
      : this.buf.toString("utf8", start, p);
  }

  // Fast path for long strings using native scanners: memchr for the closing
  // quote, a regex over the Latin-1 view for control and non-ASCII bytes,
  // simdutf (isUtf8) for UTF-8 validity, and JSON.parse to decode escapes once
  // the literal is known to be well-formed. Returns undefined when anything is
  // wrong, so that byteString() reports the exact error.
  private longString(start: number): string | undefined {
    const buf = this.buf;
    let q = start;
    for (;;) {
      q = buf.indexOf(B.Quote, q);
      if (q < 0) return undefined;
      let k = 0;
      while (buf[q - 1 - k] === B.Backslash) k++;
      if (k % 2 === 0) break;
      q++;
    }
    const latin = buf.toString("latin1", start, q);
    if (CONTROL.test(latin)) return undefined;
    const ascii = !NON_ASCII.test(latin);
    if (!ascii && !isUtf8(buf.subarray(start, q))) return undefined;
    let text: string;
    if (latin.indexOf("\\") < 0) {
      text = ascii ? latin : buf.toString("utf8", start, q);
    } else {
      try {
        text = JSON.parse(ascii ? `"${latin}"` : buf.toString("utf8", start - 1, q + 1));
      } catch {
        return undefined;
      }
      if (!text.isWellFormed()) return undefined;
    }
    this.pos = q + 1;
    return text;
  }

  // The slow path, entered at the first backslash: collects decoded segments.
  private escapedString(start: number, firstEscape: number, asciiSoFar: boolean): string {
    const buf = this.buf;
    let out = asciiSoFar
      ? buf.toString("latin1", start, firstEscape)
      : buf.toString("utf8", start, firstEscape);
    let p = firstEscape;
    let segment = p;
    let ascii = true;
    for (;;) {
      if (p >= buf.length) throw this.end("'\"' to close the string", p);
      const b = buf[p]!;
      if (b === B.Quote) break;
      if (b === B.Backslash) {
        if (p > segment)
          out += ascii ? buf.toString("latin1", segment, p) : buf.toString("utf8", segment, p);
        ascii = true;
        const escapeAt = p;
        if (p + 1 >= buf.length) throw this.end("an escape character", p + 1);
        const e = buf[p + 1]!;
        p += 2;
        switch (e) {
          case B.Quote:
            out += '"';
            break;
          case B.Backslash:
            out += "\\";
            break;
          case 0x2f:
            out += "/";
            break;
          case 0x62:
            out += "\b";
            break;
          case 0x66:
            out += "\f";
            break;
          case 0x6e:
            out += "\n";
            break;
          case 0x72:
            out += "\r";
            break;
          case 0x74:
            out += "\t";
            break;
          case 0x75: {
            const unit = this.hex4(p);
            p += 4;
            if (unit >= 0xd800 && unit <= 0xdbff) {
              if (buf[p] !== B.Backslash || buf[p + 1] !== 0x75) throw this.loneSurrogate(escapeAt);
              const low = this.hex4(p + 2);
              if (low < 0xdc00 || low > 0xdfff) throw this.loneSurrogate(escapeAt);
              p += 6;
              out += String.fromCharCode(unit, low);
            } else if (unit >= 0xdc00 && unit <= 0xdfff) {
              throw this.loneSurrogate(escapeAt);
            } else {
              out += String.fromCharCode(unit);
            }
            break;
          }
          default:
            throw new JsonError(
              "invalid_escape",
              'invalid escape; expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX',
              escapeAt,
            );
        }
        segment = p;
        continue;
      }
      if (b < 0x20) throw this.control(p);
      if (b < 0x80) p++;
      else {
        p = this.utf8Sequence(p);
        ascii = false;
      }
    }
    if (p > segment)
      out += ascii ? buf.toString("latin1", segment, p) : buf.toString("utf8", segment, p);
    this.pos = p + 1;
    return out;
  }

  private hex4(p: number): number {
    const buf = this.buf;
    let unit = 0;
    for (let i = 0; i < 4; i++) {
      if (p + i >= buf.length) throw this.end("four hex digits after \\u", p + i);
      const c = buf[p + i]!;
      let d: number;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
      else
        throw new JsonError(
          "invalid_escape",
          "invalid \\u escape; expected four hex digits",
          p + i,
        );
      unit = unit * 16 + d;
    }
    return unit;
  }

  // Validates one multi-byte UTF-8 sequence starting at p (RFC 3629: no
  // overlongs, no surrogates, nothing above U+10FFFF) and returns the offset after it.
  private utf8Sequence(p: number): number {
    const buf = this.buf;
    const b0 = buf[p]!;
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) need = 1;
    else if (b0 >= 0xe0 && b0 <= 0xef) {
      need = 2;
      if (b0 === 0xe0) lo = 0xa0;
      else if (b0 === 0xed) hi = 0x9f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      need = 3;
      if (b0 === 0xf0) lo = 0x90;
      else if (b0 === 0xf4) hi = 0x8f;
    } else throw this.badUtf8(p);
    const b1 = buf[p + 1];
    if (b1 === undefined || b1 < lo || b1 > hi) throw this.badUtf8(p);
    for (let i = 2; i <= need; i++) {
      const b = buf[p + i];
      if (b === undefined || b < 0x80 || b > 0xbf) throw this.badUtf8(p);
    }
    return p + need + 1;
  }

  private number(): number {
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    if (buf[p] === B.Minus) p++;
    const intStart = p;
    const first = buf[p];
    if (first === B.Zero) p++;
    else if (first !== undefined && first >= 0x31 && first <= B.Nine) {
      do p++;
      while (isDigit(buf[p]));
    } else {
      throw first === undefined ? this.end("a digit", p) : this.invalidNumber("a digit", p);
    }
    const intDigits = p - intStart;
    let plain = true;
    if (buf[p] === B.Dot) {
      plain = false;
      p++;
      if (!isDigit(buf[p])) throw this.invalidNumber("a digit after '.'", p);
      do p++;
      while (isDigit(buf[p]));
    }
    const e = buf[p];
    if (e === B.LowerE || e === B.UpperE) {
      plain = false;
      p++;
      if (buf[p] === B.Plus || buf[p] === B.Minus) p++;
      if (!isDigit(buf[p])) throw this.invalidNumber("a digit in the exponent", p);
      do p++;
      while (isDigit(buf[p]));
    }
    this.pos = p;
    if (plain && intDigits <= 15) {
      let v = 0;
      for (let i = intStart; i < p; i++) v = v * 10 + (buf[i]! - B.Zero);
      return intStart === start ? v : -v;
    }
    const text = buf.toString("latin1", start, p);
    const value = Number(text);
    if (!Number.isFinite(value)) {
      throw new JsonError(
        "number_overflow",
        `number ${text} overflows binary64; expected a finite number`,
        start,
      );
    }
    if (plain && !Number.isSafeInteger(value) && !this.exact) {
      throw new JsonError(
        "unsafe_integer",
        `integer ${text} is outside ±(2^53−1) and would lose precision; expected a safe integer`,
        start,
      );
    }
    if (this.exact) this.pendingText = text;
    return value;
  }

  private end(expected: string, at = this.pos): JsonError {
    return new JsonError("unexpected_end", `input ended; expected ${expected}`, at);
  }

  private unexpected(expected: string, at = this.pos): JsonError {
    const b = this.buf[at]!;
    const shown =
      b >= 0x21 && b < 0x7f
        ? `'${String.fromCharCode(b)}'`
        : `byte 0x${b.toString(16).padStart(2, "0")}`;
    return new JsonError("unexpected_token", `unexpected ${shown}; expected ${expected}`, at);
  }

  private invalidNumber(expected: string, at: number): JsonError {
    return new JsonError("invalid_number", `malformed number; expected ${expected}`, at);
  }

  private control(at: number): JsonError {
    return new JsonError(
      "control_character",
      `unescaped control character 0x${this.buf[at]!.toString(16).padStart(2, "0")} in string; expected it escaped`,
      at,
    );
  }

  private badUtf8(at: number): JsonError {
    return new JsonError("invalid_utf8", "invalid UTF-8 sequence; expected well-formed UTF-8", at);
  }

  private loneSurrogate(at: number): JsonError {
    return new JsonError(
      "lone_surrogate",
      "escaped UTF-16 surrogate is not part of a valid pair; expected well-formed Unicode",
      at,
    );
  }
}

function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= B.Zero && b <= B.Nine;
}
