// Where an HTTP host is reached: its resource URL, checked; its server,
// with the deadlines and bounds of its sockets, listening at its address;
// the Host and Origin values that name it; and the peer each request comes
// from.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, isIPv4, isIPv6 } from "node:net";
import type { Duplex } from "node:stream";
import { McpError, type McpLimits } from "../hosting/index.js";
import { JSONRPC_ERROR_CODES } from "../protocol/index.js";

/** Largest accepted request head (request line and headers), in bytes. */
const HEADERS_MAX_BYTES = 16_384;

const CONNECT_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: null,
  error: {
    code: JSONRPC_ERROR_CODES.invalidRequest,
    message:
      "Method not allowed: CONNECT opens no tunnel here; this endpoint takes one POST per request",
  },
});
/** The whole answer to a CONNECT request, written on its socket (Node hands such a request over unanswered). */
const CONNECT_REFUSAL = [
  "HTTP/1.1 405 Method Not Allowed",
  "allow: POST",
  "content-type: application/json",
  `content-length: ${Buffer.byteLength(CONNECT_BODY)}`,
  "connection: close",
  "",
  CONNECT_BODY,
].join("\r\n");

/** The endpoint's canonical URL; throws `invalid_options` unless it is http(s) without query or fragment. */
export function resourceOf(given: string): URL {
  let resource: URL;
  try {
    resource = new URL(given);
  } catch {
    throw new McpError("invalid_options", `resource ${JSON.stringify(given)} is not a URL`);
  }
  if (resource.hash !== "" || resource.search !== "" || !/^https?:$/.test(resource.protocol))
    throw new McpError(
      "invalid_options",
      `resource ${given} must be an http(s) URL without query or fragment`,
    );
  return resource;
}

/** A server whose sockets are bounded by `limits`, each request handed to `onRequest`. */
export function boundedServer(
  limits: McpLimits,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
): Server {
  const server = createServer(
    {
      maxHeaderSize: HEADERS_MAX_BYTES,
      requestTimeout: limits.ioDeadlineMs,
      // An idle connection closes after 5 s: a proxy in front keeps its own idle ones
      // shorter (the guide's nginx: 4 s), or it may send a request on one being closed.
      keepAliveTimeout: 5_000,
      // Deadlines are checked this often (Node's default, 30 s, would let a slow client hold a socket that long).
      connectionsCheckingInterval: 250,
    },
    onRequest,
  );
  server.headersTimeout = limits.ioDeadlineMs;
  // CONNECT asks for a tunnel, which this endpoint never opens: without an answer Node would just close the socket.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => {});
    socket.end(CONNECT_REFUSAL);
  });
  // Every socket costs a file descriptor: past this many, new connections are refused.
  server.maxConnections = 1_024;
  return server;
}

/** Where a server listens: its URL, and the `Host` value of that address. */
export interface Listening {
  /** e.g. `http://127.0.0.1:8080`. */
  readonly address: string;
  /** e.g. `127.0.0.1:8080`, `[::1]:8080`. */
  readonly hostPort: string;
  readonly port: number;
}

/** Starts `server` listening on `host`:`port` (0: any free one); throws `listen_failed`. */
export async function listenOn(server: Server, host: string, port: number): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e) =>
      reject(new McpError("listen_failed", `cannot listen on ${host}: ${e.message}`, { cause: e })),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return { address: `http://${shown}:${bound}`, hostPort: `${shown}:${bound}`, port: bound };
}

/**
 * The `Host` values answered, lower-cased: the resource's, the listening
 * address's (and every loopback name of it when it is one), and those given.
 */
export function allowedHostsOf(
  resource: URL,
  listenHost: string,
  listening: Listening,
  given: readonly string[] = [],
): ReadonlySet<string> {
  const { port } = listening;
  return new Set(
    [
      resource.host,
      listening.hostPort,
      ...(isLoopback(listenHost)
        ? [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]
        : []),
      ...given,
    ].map((h) => h.toLowerCase()),
  );
}

/** The browser origins allowed, lower-cased: the resource's own and those given. */
export function allowedOriginsOf(
  resource: URL,
  given: readonly string[] = [],
): ReadonlySet<string> {
  return new Set([resource.origin, ...given].map((o) => o.toLowerCase()));
}

function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost";
}

/**
 * Where `req` comes from, as an authenticator shares its work: the socket's
 * address; for a socket from loopback (a proxy on this machine, which the
 * guide's nginx is), the last address of `X-Forwarded-For`, the one that
 * proxy wrote. An IPv6 address stands for its /64, what one host is given.
 * A local process can name any address this way, and so claim more than its
 * share: never more than all of it, which it could take before.
 *
 * @example
 * peerOf(req); // "203.0.113.7", "2001:db8:0:1::/64"
 */
export function peerOf(req: IncomingMessage): string {
  const socket = canonicalAddress(req.socket.remoteAddress ?? "");
  if (!/^127\.|^::1$/.test(socket)) return socket;
  const forwarded = req.headers["x-forwarded-for"];
  const last = (Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? ""))
    .split(",")
    .pop()!
    .trim();
  return isIPv4(last) || isIPv6(last) ? canonicalAddress(last) : socket;
}

/** `address` as one peer: an IPv4 one (mapped into IPv6 or not) as it is, an IPv6 one as its /64. */
function canonicalAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1]!;
  if (!isIPv6(address) || address === "::1") return address;
  const [head = "", tail] = address.split("::");
  const groups = (part: string | undefined) => (part ? part.split(":") : []);
  const before = groups(head);
  const after = groups(tail);
  // An IPv4 tail stands for two groups.
  const width = after.length + (after.at(-1)?.includes(".") ? 1 : 0);
  const full =
    tail === undefined
      ? before
      : [...before, ...Array(8 - before.length - width).fill("0"), ...after];
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}
