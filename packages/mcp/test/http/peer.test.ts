import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { peerOf } from "../../src/http/_server.js";

// The peer a request comes from, as the authenticator shares its work by it:
// the socket's address, or, over loopback (a proxy on this machine), the
// address that proxy wrote last into X-Forwarded-For; IPv6 as its /64.
const request = (remoteAddress: string, forwarded?: string | string[]) =>
  ({
    socket: { remoteAddress },
    headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded },
  }) as unknown as IncomingMessage;

describe("the peer of a request", () => {
  it.each([
    ["a remote IPv4 socket", "203.0.113.7", undefined, "203.0.113.7"],
    [
      "a remote socket's X-Forwarded-For is not believed",
      "203.0.113.7",
      "198.51.100.1",
      "203.0.113.7",
    ],
    ["an IPv4 socket mapped into IPv6", "::ffff:203.0.113.7", undefined, "203.0.113.7"],
    [
      "a remote IPv6 socket, as its /64",
      "2001:db8:0:1:aa:bb:cc:dd",
      undefined,
      "2001:db8:0:1::/64",
    ],
    ["another address of the same /64", "2001:db8:0:1::ff", undefined, "2001:db8:0:1::/64"],
    ["a compressed IPv6 address", "2001:db8::1", undefined, "2001:db8:0:0::/64"],
    ["an IPv6 address ending in IPv4", "64:ff9b::203.0.113.7", undefined, "64:ff9b:0:0::/64"],
    ["loopback without a proxy's header", "127.0.0.1", undefined, "127.0.0.1"],
    ["another loopback address", "127.0.0.2", undefined, "127.0.0.2"],
    ["loopback behind a proxy", "127.0.0.1", "198.51.100.1", "198.51.100.1"],
    [
      "loopback, the address the proxy wrote last",
      "127.0.0.1",
      "10.0.0.1, 198.51.100.1",
      "198.51.100.1",
    ],
    ["loopback, two headers", "::1", ["10.0.0.1", "198.51.100.1"], "198.51.100.1"],
    ["loopback, an IPv6 client", "::ffff:127.0.0.1", "2001:db8:5:6::1", "2001:db8:5:6::/64"],
    ["loopback, a last entry that is no address", "127.0.0.1", "198.51.100.1, evil", "127.0.0.1"],
    ["loopback, an empty header", "127.0.0.1", "", "127.0.0.1"],
  ])("%s", (_what, socket, forwarded, peer) => {
    expect(peerOf(request(socket, forwarded))).toBe(peer);
  });
});
