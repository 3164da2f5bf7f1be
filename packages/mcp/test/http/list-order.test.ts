import type { HostBinding } from "@rukh/core";
import { commandsDescriptor, freePort } from "@rukh/testkit";
import { makeExtension } from "@rukh/testkit/extension";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHttpHost, serveHttp } from "../../src/index.js";
import { fixedTokenAuthenticator, PROGRAMS, useState, type Wire } from "../_helpers.js";

// One tools/list, whoever answers it: two hosts on one state directory (as
// two replicas behind a balancer are) list the same tools in the same order,
// call after call, in each era the URL serves, page by page, a cursor from
// one going on at the other. The conformance suite asks this of 2026-07-28
// only (tools-list-deterministic-order) and, in 2025-11-25, sends its
// concurrent POSTs only to a server with sessions; both are asked here.
const at = useState();
const binding: HostBinding = { subject: "s", actor: "a", taskAuthorityRef: "t", preset: "default" };
const ERAS = ["2026-07-28", "2025-11-25", "2025-06-18"] as const;
type Era = (typeof ERAS)[number];
const hosts: McpHttpHost[] = [];
const urls: string[] = [];

beforeAll(async () => {
  // More tools than one page holds, with names whose order is not their
  // install order (c10 before c2), so pages, cursors and order all matter.
  const many = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}` }));
  await at.state.install(
    await makeExtension(at.work, commandsDescriptor("fx.hidden", "2.0.0", many), PROGRAMS),
  );
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    urls.push(url);
    hosts.push(
      await serveHttp({
        // Each host opens the directory itself, as a replica in its own process does.
        state: at.root,
        resource: url,
        listen: { port },
        authenticator: fixedTokenAuthenticator(binding),
      }),
    );
  }
}, 30_000);
afterAll(async () => {
  for (const h of hosts) await h.close();
});

/** One tools/list page from `url` in `era`, as that era's client sends it (2025: no session, the version in the header). */
async function page(url: string, era: Era, cursor?: string): Promise<Wire> {
  const modern = era === "2026-07-28";
  const params = {
    ...(cursor !== undefined && { cursor }),
    ...(modern && { _meta: MODERN_META }),
  };
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: "Bearer t",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": era,
      ...(modern && { "mcp-method": "tools/list" }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const body = JSON.parse(text);
  expect(body.result, text).toBeDefined();
  return body.result;
}

/** Every page of the list, the n-th page asked of `from(n)`; the tools and how many pages. */
async function listAll(
  era: Era,
  from: (n: number) => string,
): Promise<{ tools: Wire[]; pages: number }> {
  const tools: Wire[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const r = await page(from(pages), era, cursor);
    tools.push(...r.tools);
    cursor = r.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { tools, pages };
}

const names = (tools: Wire[]) => tools.map((t) => t.name as string);
/** Code-unit order: what `sort()` gives strings, the same on every machine and locale. */
const nameOrder = (list: string[]) => [...list].sort();

describe.each(ERAS)("tools/list in %s over Streamable HTTP", (era) => {
  it("two hosts on one state directory list the same tools in name order, call after call", async () => {
    const first = await listAll(era, () => urls[0]!);
    expect(first.pages).toBeGreaterThan(1);
    expect(names(first.tools)).toEqual(nameOrder(names(first.tools)));
    expect(new Set(names(first.tools)).size).toBe(first.tools.length);
    for (let i = 0; i < 3; i++)
      for (const url of urls) expect((await listAll(era, () => url)).tools).toEqual(first.tools);
  });

  it("a cursor from one host goes on at the other: the pages interleave into the same list", async () => {
    const one = await listAll(era, () => urls[0]!);
    const alternating = await listAll(era, (n) => urls[n % 2]!);
    const otherFirst = await listAll(era, (n) => urls[(n + 1) % 2]!);
    expect(alternating.tools).toEqual(one.tools);
    expect(otherFirst.tools).toEqual(one.tools);
  });

  it("answers concurrent requests, no session, each with the same first page", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => page(urls[i % 2]!, era)));
    for (const a of answers) expect(a).toEqual(answers[0]);
  });
});

it("every era lists the same tools in the same order", async () => {
  const [modern, ...older] = await Promise.all(
    ERAS.map(async (era) => names((await listAll(era, () => urls[0]!)).tools)),
  );
  for (const o of older) expect(o).toEqual(modern);
});
