import { readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";

/**
 * A loopback port nothing listens on now (for a server that must know its
 * own URL before it starts). It is drawn at random from below the kernel's
 * range of ephemeral ports where there is room: a port from that range, once
 * probed and released, can be taken again before the server binds it by the
 * local end of any outgoing connection (another suite's client), which a
 * port below it never is.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  if (low !== undefined && low > 12_000)
    for (let i = 0; i < 50; i++) {
      const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
      if (await canListen(port)) return port;
    }
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The first port of the kernel's ephemeral range, where it can be read. */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0],
    );
    return Number.isSafeInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}
