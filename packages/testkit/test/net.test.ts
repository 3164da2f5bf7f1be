import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { expect, it } from "vitest";
import { freePort } from "../src/index.js";

it("hands out a loopback port below the kernel's ephemeral range, where a server can listen", async () => {
  const port = await freePort();
  let low: number | undefined;
  try {
    low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0]);
  } catch {
    low = undefined;
  }
  // Where the range is known and leaves room, no outgoing connection can take the port meanwhile.
  if (low !== undefined && low > 12_000) expect(port).toBeLessThan(low);
  await new Promise<void>((resolve, reject) => {
    const s = createServer().once("error", reject);
    s.listen(port, "127.0.0.1", () => s.close(() => resolve()));
  });
});
