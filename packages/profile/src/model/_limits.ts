import { RESULT_VALIDATION_MAX_MS } from "@rukh/command-result";

/** Largest accepted compressed `.tgz` package: 32 MiB. */
export const PACKAGE_MAX_COMPRESSED_BYTES = 33_554_432;
/** Largest accepted package content (sum of regular file sizes, and the unpacked tar stream): 64 MiB. */
export const PACKAGE_MAX_BYTES = 67_108_864;
/** Largest accepted single file in a package: 16 MiB. */
export const PACKAGE_MAX_FILE_BYTES = 16_777_216;
/** Most regular files plus directories accepted in a package. */
export const PACKAGE_MAX_FILES = 4_096;
/** Longest accepted path inside a package, in UTF-8 bytes. */
export const PACKAGE_MAX_PATH_BYTES = 255;
/** Largest accepted `rukh-signature.json`. */
export const SIGNATURE_MAX_BYTES = 4_096;
/** Largest accepted owner configuration (`config.json`, or a configuration inside a revision). */
export const CONFIG_MAX_BYTES = 1_048_576;
/** Most tools in one `listTools` page. */
export const PAGE_MAX_TOOLS = 32;
/** Most encoded bytes (UTF-8 JSON of the tools array) in one `listTools` page: 1 MiB. */
export const PAGE_MAX_BYTES = 1_048_576;
/**
 * Bytes of a `tools/list` answer kept for what surrounds its page of tools:
 * the JSON-RPC framing, the next cursor, the protocol's members, the
 * server's name and version, and a request id of up to 1 KiB.
 */
export const LIST_ANSWER_RESERVE_BYTES = 2_048;

/**
 * The most bytes of tools a page may hold when its answer may take at most
 * `responseMaxBytes`: {@link PAGE_MAX_BYTES}, or less for a tighter answer.
 *
 * @example
 * listPageBytes(2_097_152); // 1048576
 */
export function listPageBytes(responseMaxBytes: number): number {
  return Math.min(PAGE_MAX_BYTES, responseMaxBytes - LIST_ANSWER_RESERVE_BYTES);
}

/**
 * The smallest response limit whose `tools/list` answers can carry a tool
 * that takes `toolBytes` on a page: the page's brackets, the tool, and
 * {@link LIST_ANSWER_RESERVE_BYTES}.
 *
 * @example
 * listAnswerBytes(3_000); // 5050
 */
export function listAnswerBytes(toolBytes: number): number {
  return toolBytes + 2 + LIST_ANSWER_RESERVE_BYTES;
}

/**
 * The smallest response limit whose `initialize` and `server/discover`
 * answers can carry an endpoint's `instructions`: the instructions as JSON
 * text (up to four bytes a character, more where JSON escapes one) and
 * {@link LIST_ANSWER_RESERVE_BYTES} for the rest of the answer.
 *
 * @example
 * connectAnswerBytes("Call greet first."); // 2067
 */
export function connectAnswerBytes(instructions: string | undefined): number {
  return Buffer.byteLength(JSON.stringify(instructions ?? "")) + LIST_ANSWER_RESERVE_BYTES;
}

/** Longest accepted cursor token, in characters. */
export const CURSOR_MAX_LENGTH = 512;
/** Longest tool description, in UTF-16 code units (the descriptor already bounds it lower). */
export const TOOL_DESCRIPTION_MAX_LENGTH = 4_096;
/**
 * Longest `instructions` of an MCP endpoint, in characters (code points):
 * what Claude Code passes on to its model before it cuts the rest.
 */
export const MCP_INSTRUCTIONS_MAX_LENGTH = 2_048;

/** Owner-tunable limits; an owner configuration may only lower them. */
export interface OwnerLimits {
  readonly maxPackageBytes: number;
  readonly maxPackageFiles: number;
  readonly maxFileBytes: number;
  readonly maxDeadlineMs: number;
  readonly maxConcurrency: number;
  readonly maxCommandResultBytes: number;
  /** How long validating one result may take, elapsed, in ms (the command result package's bound). */
  readonly maxResultValidationMs: number;
}

/** The default (and largest allowed) owner limits. */
export const DEFAULT_OWNER_LIMITS: OwnerLimits = Object.freeze({
  maxPackageBytes: PACKAGE_MAX_BYTES,
  maxPackageFiles: PACKAGE_MAX_FILES,
  maxFileBytes: PACKAGE_MAX_FILE_BYTES,
  maxDeadlineMs: 600_000,
  maxConcurrency: 16,
  maxCommandResultBytes: 131_072,
  maxResultValidationMs: RESULT_VALIDATION_MAX_MS,
});

/**
 * The transport limits of an MCP endpoint. These values are the defaults and
 * also the most an owner may set: an endpoint's `limits` can only lower them.
 */
export interface McpTransportLimits {
  /** Largest incoming message (one line without its newline), in bytes. */
  readonly messageMaxBytes: number;
  /** Deepest nesting of an incoming message. */
  readonly messageMaxDepth: number;
  /** Most object members plus array elements in one incoming message. */
  readonly messageMaxNodes: number;
  /** Largest encoded response; a larger one becomes an error. */
  readonly responseMaxBytes: number;
  /** Messages waiting to be written at which reading pauses. */
  readonly queueMaxMessages: number;
  /** Bytes waiting to be written at which reading pauses. */
  readonly queueMaxBytes: number;
  /** Requests read but not yet answered at which reading pauses. */
  readonly pendingMaxRequests: number;
  /** How long a line may stay incomplete and a write may stay blocked, in ms. */
  readonly ioDeadlineMs: number;
  /** How long `server/discover`, `initialize` and `tools/list` may take, in ms. */
  readonly listDeadlineMs: number;
}

/** The default (and largest allowed) MCP transport limits. */
export const MCP_TRANSPORT_LIMITS: McpTransportLimits = Object.freeze({
  messageMaxBytes: 1_048_576,
  messageMaxDepth: 32,
  messageMaxNodes: 4_096,
  responseMaxBytes: 2_097_152,
  queueMaxMessages: 32,
  queueMaxBytes: 4_194_304,
  pendingMaxRequests: 256,
  ioDeadlineMs: 2_000,
  listDeadlineMs: 30_000,
});
