import { type AddressInfo, createServer } from "node:net";

/** A loopback port nothing listens on now (for a server that must know its own URL before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
