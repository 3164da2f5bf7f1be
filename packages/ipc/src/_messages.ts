import { canonicalJson, type JsonObject, type JsonValue, parseJson } from "@rukh/json";
import { IpcError } from "./_errors.js";
import { IPC_LIMITS, IPC_PROTOCOL } from "./_limits.js";

/** Why the host asks a command to stop. */
export type CancelCause = "client" | "owner" | "deadline";
/** How a command reports it ended. Anything that is not one of these is an execution failure. */
export type CompletionOutcome = "succeeded" | "command_failed";
/** Severity of a diagnostics line from the child. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const CANCEL_CAUSES: readonly string[] = ["client", "owner", "deadline"];
const OUTCOMES: readonly string[] = ["succeeded", "command_failed"];
const LOG_LEVELS: readonly string[] = ["debug", "info", "warn", "error"];

/** Child → host, first frame: its MAC proves the child holds the secret; it echoes the host nonce. */
export interface HelloMessage {
  readonly type: "hello";
  readonly protocol: string;
  readonly hostNonce: string;
}

/**
 * Host → child: run one command. Always the host's first frame, at most once.
 *
 * @example
 * const m: InvokeMessage = { type: "invoke", invocationId: "inv-1", command: "acme.git/status",
 *   inputs: { path: "." }, explicitInputIds: ["path"], remainingMs: 30_000, features: [] };
 */
export interface InvokeMessage {
  readonly type: "invoke";
  /** The core's id for this invocation: 1–256 bytes of `[A-Za-z0-9._:/-]`, starting alphanumeric. */
  readonly invocationId: string;
  /** Canonical command identity `<extension id>/<command id>`. */
  readonly command: string;
  /** Typed inputs after validation and defaults, keyed by snake_case input id. */
  readonly inputs: JsonObject;
  /** Input ids the caller supplied explicitly: unique, each a key of `inputs`. */
  readonly explicitInputIds: readonly string[];
  /** Milliseconds left until the invocation's deadline when the host sent this (1 to 86,400,000). */
  readonly remainingMs: number;
  /** Features enabled for this invocation: unique tokens. */
  readonly features: readonly string[];
}

/**
 * Host → child: stop the running command. Sent at most once, only after invoke.
 *
 * @example
 * const m: CancelMessage = { type: "cancel", cause: "client" };
 */
export interface CancelMessage {
  readonly type: "cancel";
  readonly cause: CancelCause;
}

/**
 * Child → host: how the command ended. Exactly one is accepted per channel.
 * `commandResult` is opaque here; the core validates it (command-result/1).
 *
 * @example
 * const m: CompletionMessage = { type: "completion", outcome: "succeeded",
 *   commandResult: { kind: "text", text: "ok" } };
 */
export interface CompletionMessage {
  readonly type: "completion";
  readonly outcome: CompletionOutcome;
  readonly commandResult?: JsonValue;
  /** Opaque effect references (1–1,024 bytes each, no control characters). */
  readonly effects?: readonly string[];
  /** A safe, human-readable message (at most 4,096 bytes). */
  readonly message?: string;
}

/**
 * Child → host: one diagnostics line for the owner's logs (never shown to a client).
 *
 * @example
 * const m: LogMessage = { type: "log", level: "info", message: "fetched 3 refs" };
 */
export interface LogMessage {
  readonly type: "log";
  readonly level: LogLevel;
  readonly message: string;
}

/**
 * Child → host: progress report. It never extends the deadline.
 *
 * @example
 * const m: ProgressMessage = { type: "progress", progress: 3, total: 10 };
 */
export interface ProgressMessage {
  readonly type: "progress";
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export type HostMessage = InvokeMessage | CancelMessage;
export type ChildMessage = HelloMessage | CompletionMessage | LogMessage | ProgressMessage;

const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;
const COMMAND = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const INPUT_ID = /^[a-z][a-z0-9_]*$/;
const NONCE = /^[0-9a-f]{64}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

type Obj = Record<string, JsonValue>;

function invalid(path: string, expected: string): IpcError {
  return new IpcError("invalid_message", `invalid message at "${path}": expected ${expected}`);
}

function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function members(v: Obj, required: readonly string[], optional: readonly string[]): void {
  for (const key of required) if (!Object.hasOwn(v, key)) throw invalid(`/${key}`, "a member");
  for (const key of Object.keys(v)) {
    if (!required.includes(key) && !optional.includes(key)) {
      throw invalid(`/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`, "no such member");
    }
  }
}

function text(v: unknown, path: string, maxBytes: number, pattern?: RegExp): string {
  if (typeof v !== "string") throw invalid(path, "a string");
  const bytes = Buffer.byteLength(v, "utf8");
  if (bytes > maxBytes) throw invalid(path, `at most ${maxBytes} UTF-8 bytes, got ${bytes}`);
  if (pattern !== undefined && !pattern.test(v))
    throw invalid(path, `a string matching ${pattern}`);
  return v;
}

function list(v: unknown, path: string, each: (x: unknown, p: string) => string): string[] {
  if (!Array.isArray(v)) throw invalid(path, "an array");
  if (v.length > IPC_LIMITS.maxListEntries) {
    throw invalid(path, `at most ${IPC_LIMITS.maxListEntries} entries`);
  }
  const seen = new Set<string>();
  return v.map((x, i) => {
    const s = each(x, `${path}/${i}`);
    if (seen.has(s)) throw invalid(`${path}/${i}`, "unique entries");
    seen.add(s);
    return s;
  });
}

function integer(v: unknown, path: string, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(path, `an integer from ${min} to ${max}`);
  }
  return v;
}

function finite(v: unknown, path: string, min: number, exclusive: boolean): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || (exclusive && v === min)) {
    throw invalid(path, `a finite number ${exclusive ? ">" : "≥"} ${min}`);
  }
  return v;
}

function oneOf(v: unknown, path: string, allowed: readonly string[]): string {
  if (typeof v !== "string" || !allowed.includes(v)) {
    throw invalid(path, `one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
  }
  return v;
}

function protocol(v: Obj): void {
  if (typeof v.protocol === "string" && v.protocol !== IPC_PROTOCOL) {
    throw new IpcError(
      "unsupported_protocol",
      `peer speaks "${v.protocol.slice(0, 64)}"; expected "${IPC_PROTOCOL}"`,
    );
  }
  oneOf(v.protocol, "/protocol", [IPC_PROTOCOL]);
}

const id = (max: number, p: RegExp) => (x: unknown, path: string) => text(x, path, max, p);
const ref = (x: unknown, path: string) => {
  const s = text(x, path, IPC_LIMITS.maxReferenceBytes);
  if (s.length === 0 || CONTROL.test(s))
    throw invalid(path, "a non-empty string without control characters");
  if (!isSafeEffectReference(s))
    throw invalid(
      path,
      "an https URL (lowercase host, a path, no user info, port 443 or fragment, as it prints back) or a urn:<nid>:<nss> (the effects contract)",
    );
  return s;
};

// The effects contract's forms (docs/contracts/effects.md), as written:
// nothing is normalised, so a reference is shown exactly as it was checked.
const PCHAR = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})";
const DNS_LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const HTTPS = new RegExp(
  `^https://(?:${DNS_LABEL}(?:\\.${DNS_LABEL})*|(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}|\\[[0-9a-f:.]+\\])(?::(?!443(?![0-9]))[1-9][0-9]{0,4})?(?:/${PCHAR}*)+(?:\\?(?:[A-Za-z0-9\\-._~!$&()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?$`,
);
const URN = new RegExp(`^urn:[A-Za-z0-9][A-Za-z0-9-]{0,30}[A-Za-z0-9]:${PCHAR}(?:${PCHAR}|/)*$`);
/** A path segment `.` or `..`, which a URL parser would resolve away. */
const DOT_SEGMENT = /\/\.{1,2}(?=\/|\?|$)/;

/**
 * Whether `s` is a safe effect reference by the effects contract: an https
 * URL that a URL parser prints back exactly (lowercase DNS name or IP
 * literal, no user info, no fragment, a path), or a URN (RFC 8141 NID and
 * NSS, no `?` or `#` parts). Everything else (other schemes, relative
 * references, spaces, non-ASCII) is not.
 *
 * @example
 * isSafeEffectReference("https://tracker.example/issues/42"); // true
 * isSafeEffectReference("javascript:alert(1)"); // false
 */
export function isSafeEffectReference(s: string): boolean {
  if (URN.test(s)) return true;
  if (!HTTPS.test(s) || DOT_SEGMENT.test(s.slice(8))) return false;
  const port = /^https:\/\/[^/]*:([0-9]+)\//.exec(s)?.[1];
  if (port !== undefined && Number(port) > 65_535) return false;
  try {
    return new URL(s).href === s;
  } catch {
    return false;
  }
}

/** Checks a decoded value against the schema of a message sent by `from`. Throws {@link IpcError}. */
export function checkMessage(v: unknown, from: "host"): HostMessage;
export function checkMessage(v: unknown, from: "child"): ChildMessage;
export function checkMessage(v: unknown, from: "host" | "child"): HostMessage | ChildMessage;
export function checkMessage(v: unknown, from: "host" | "child"): HostMessage | ChildMessage {
  if (!isObject(v)) throw invalid("", "a JSON object");
  const type = v.type;
  const max = IPC_LIMITS.maxIdentifierBytes;
  const key = `${from}:${typeof type === "string" ? type : ""}`;
  switch (key) {
    case "child:hello":
      members(v, ["type", "protocol", "hostNonce"], []);
      protocol(v);
      text(v.hostNonce, "/hostNonce", 64, NONCE);
      return v as unknown as HelloMessage;
    case "host:invoke": {
      members(
        v,
        [
          "type",
          "invocationId",
          "command",
          "inputs",
          "explicitInputIds",
          "remainingMs",
          "features",
        ],
        [],
      );
      text(v.invocationId, "/invocationId", max, TOKEN);
      text(v.command, "/command", max, COMMAND);
      if (!isObject(v.inputs)) throw invalid("/inputs", "a JSON object");
      for (const k of Object.keys(v.inputs)) text(k, "/inputs", max, INPUT_ID);
      const inputs = v.inputs;
      list(v.explicitInputIds, "/explicitInputIds", (x, p) => {
        const s = text(x, p, max, INPUT_ID);
        if (!Object.hasOwn(inputs, s)) throw invalid(p, "the id of a member of /inputs");
        return s;
      });
      integer(v.remainingMs, "/remainingMs", 1, IPC_LIMITS.maxRemainingMs);
      list(v.features, "/features", id(max, TOKEN));
      return v as unknown as InvokeMessage;
    }
    case "host:cancel":
      members(v, ["type", "cause"], []);
      oneOf(v.cause, "/cause", CANCEL_CAUSES);
      return v as unknown as CancelMessage;
    case "child:completion":
      members(v, ["type", "outcome"], ["commandResult", "effects", "message"]);
      oneOf(v.outcome, "/outcome", OUTCOMES);
      if (v.effects !== undefined) list(v.effects, "/effects", ref);
      if (v.message !== undefined) text(v.message, "/message", IPC_LIMITS.maxTextBytes);
      return v as unknown as CompletionMessage;
    case "child:log":
      members(v, ["type", "level", "message"], []);
      oneOf(v.level, "/level", LOG_LEVELS);
      text(v.message, "/message", IPC_LIMITS.maxTextBytes);
      return v as unknown as LogMessage;
    case "child:progress":
      members(v, ["type", "progress"], ["total", "message"]);
      finite(v.progress, "/progress", 0, false);
      if (v.total !== undefined) finite(v.total, "/total", 0, true);
      if (v.message !== undefined) text(v.message, "/message", IPC_LIMITS.maxTextBytes);
      return v as unknown as ProgressMessage;
    default:
      throw invalid(
        "/type",
        from === "host"
          ? `"invoke" or "cancel" from the host`
          : `"hello", "log", "progress" or "completion" from the child`,
      );
  }
}

/** Strictly parses and checks one frame payload. Throws {@link IpcError}. */
export function decodeMessage(payload: Uint8Array, from: "host"): HostMessage;
export function decodeMessage(payload: Uint8Array, from: "child"): ChildMessage;
export function decodeMessage(payload: Uint8Array, from: "host" | "child") {
  const read = parseJson(payload, {
    limits: {
      maxBytes: IPC_LIMITS.maxFrameBytes,
      maxDepth: IPC_LIMITS.maxDepth,
      maxNodes: IPC_LIMITS.maxNodes,
    },
  });
  if (!read.ok) {
    throw new IpcError("invalid_json", `frame payload is not strict JSON: ${read.error.message}`, {
      cause: read.error,
    });
  }
  return checkMessage(read.value, from);
}

/** Checks and serializes one outgoing message (RFC 8785 form, UTF-8). Throws {@link IpcError}. */
export function encodeMessage(message: HostMessage | ChildMessage, from: "host" | "child"): Buffer {
  let json: string;
  try {
    json = canonicalJson(message as unknown as JsonValue);
  } catch (error) {
    throw new IpcError("invalid_message", `message is not JSON data: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const bytes = Buffer.from(json, "utf8");
  if (bytes.length > IPC_LIMITS.maxFrameBytes) {
    throw new IpcError(
      "frame_too_large",
      `a ${message.type} message of ${bytes.length} bytes exceeds ${IPC_LIMITS.maxFrameBytes}`,
    );
  }
  // Round-trip through the strict reader so that a sender can never emit what a receiver rejects.
  decodeMessage(bytes, from as "host");
  return bytes;
}
