// The hostile registry does what a test asks of it: the lies are served as
// told, and every request is recorded with its port and headers.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type HostileRegistry, startHostileRegistry } from "../dist/hostile-registry.js";

let evil: HostileRegistry;
const tarball = Buffer.from("not really a tarball");

beforeAll(async () => {
  evil = await startHostileRegistry({ trickleMs: 50 });
  await evil.serve({
    name: "@evil/x",
    versions: {
      "1.0.0": { tarball },
      "1.0.1": { tarball, integrity: "sha512-", serve: "redirect" },
      "1.0.2": { tarball, integrity: null, shasum: "ab", serve: "second-port" },
      "1.0.3": { tarball, serve: "trickle" },
      "1.0.4": { tarball, serve: "loop" },
    },
    distTags: { latest: "1.0.1\nforged row" },
  });
  await evil.serve({ name: "@evil/slow", versions: {}, trickle: true });
});
afterAll(() => evil?.close());

it("serves the package document as told", async () => {
  const doc = (await (await fetch(`${evil.url}@evil%2fx`)).json()) as {
    "dist-tags": Record<string, string>;
    versions: Record<string, { dist: Record<string, string> }>;
  };
  expect(doc["dist-tags"]).toEqual({ latest: "1.0.1\nforged row" });
  expect(doc.versions["1.0.0"]!.dist).toEqual({
    tarball: `${evil.url}%40evil%2Fx/-/1.0.0.tgz`,
    integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
  });
  expect(doc.versions["1.0.1"]!.dist.integrity).toBe("sha512-");
  expect(doc.versions["1.0.2"]!.dist).toEqual({
    tarball: `${evil.secondUrl}%40evil%2Fx/-/1.0.2.tgz`,
    shasum: "ab",
  });
  expect((await fetch(`${evil.url}@evil%2fnone`)).status).toBe(404);
});

it("redirects to the second port and records the headers each port received", async () => {
  await evil.requests();
  const r = await fetch(`${evil.url}%40evil%2Fx/-/1.0.1.tgz`, {
    headers: { authorization: "Bearer t0ken" },
  });
  expect(Buffer.from(await r.arrayBuffer())).toEqual(tarball);
  const seen = await evil.requests();
  expect(seen.map((s) => [s.port, s.url])).toEqual([
    ["registry", "/%40evil%2Fx/-/1.0.1.tgz"],
    ["second", "/%40evil%2Fx/-/1.0.1.tgz"],
  ]);
  expect(seen[0]!.headers.authorization).toBe("Bearer t0ken");
  expect(await evil.requests()).toEqual([]);
});

it("redirects a looping tarball to itself", async () => {
  const r = await fetch(`${evil.url}%40evil%2Fx/-/1.0.4.tgz`, { redirect: "manual" });
  expect([r.status, r.headers.get("location")]).toEqual([302, "/%40evil%2Fx/-/1.0.4.tgz"]);
});

it("trickles a body one byte at a time without end", async () => {
  for (const url of [`${evil.url}@evil%2fslow`, `${evil.url}%40evil%2Fx/-/1.0.3.tgz`]) {
    const abort = new AbortController();
    const r = await fetch(url, { signal: abort.signal });
    const reader = r.body!.getReader();
    const started = Date.now();
    let bytes = 0;
    while (bytes < 4) bytes += (await reader.read()).value?.length ?? 0;
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    abort.abort();
  }
});
