// An HTTP front of the HTTP host for the conformance suite's task
// scenarios: it forwards every request and answer as they are, but for the
// names of the suite's fixture tools (see _tasks-fixture.ts), which it
// rewrites in a `tools/call` (body and Mcp-Name) and in a `tools/list`
// answer. It is test code; it answers nothing itself.

import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostNames, toHost, toSuite } from "./_tasks-fixture.js";

const VERSION = "io.modelcontextprotocol/protocolVersion";

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Headers of a message forwarded whole: without the ones about how it was framed on its way here. */
function whole(headers: IncomingMessage["headers"]): IncomingMessage["headers"] {
  const { "transfer-encoding": _te, connection: _c, "keep-alive": _k, ...rest } = headers;
  return rest;
}

/** Sends one request to `target` and resolves with its answer, whole. */
function forward(
  target: URL,
  method: string,
  headers: IncomingMessage["headers"],
  body: Buffer,
): Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const out = request(
      target,
      { method, headers: { ...whole(headers), host: target.host, "content-length": body.length } },
      (res) => {
        bodyOf(res).then(
          (b) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: b }),
          reject,
        );
      },
    );
    out.on("error", reject);
    out.end(body);
  });
}

/** A `tools/list` answer's JSON-RPC message, from a JSON or an SSE body. */
function messageOf(type: string | undefined, body: Buffer): unknown {
  const text = body.toString("utf8");
  if (type?.startsWith("text/event-stream")) {
    const data = text.split("\n").filter((l) => l.startsWith("data: "));
    return JSON.parse(data.at(-1)!.slice(6));
  }
  return JSON.parse(text);
}

/** Starts the renamer in front of `target` (the endpoint's URL) on a loopback port. */
export async function startRenamer(
  target: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target);
  let names: ReturnType<typeof hostNames> | undefined;
  const server: Server = createServer(async (req, res) => {
    try {
      let body = await bodyOf(req);
      const headers = { ...req.headers };
      // biome-ignore lint/suspicious/noExplicitAny: a wire message, read member by member
      let m: any;
      try {
        m = req.method === "POST" ? JSON.parse(body.toString("utf8")) : undefined;
      } catch {}
      if (m?.method === "tools/call") {
        const meta = m.params?._meta;
        names ??= hostNames(async (cursor) => {
          const list = {
            jsonrpc: "2.0",
            id: "renamer",
            method: "tools/list",
            params: { ...(cursor !== undefined && { cursor }), _meta: meta },
          };
          const r = await forward(
            to,
            "POST",
            {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-protocol-version": meta?.[VERSION],
              "mcp-method": "tools/list",
            },
            Buffer.from(JSON.stringify(list)),
          );
          return messageOf(r.headers["content-type"], r.body);
        });
        const mapped = await toHost(m, names);
        if (mapped !== m) {
          body = Buffer.from(JSON.stringify(mapped));
          if (headers["mcp-name"] === m.params.name) headers["mcp-name"] = mapped.params.name;
        }
      }
      const r = await forward(to, req.method ?? "GET", headers, body);
      let out = r.body;
      if (m?.method === "tools/list" && r.status === 200) {
        const renamed = JSON.stringify(toSuite(messageOf(r.headers["content-type"], r.body)));
        out = Buffer.from(
          r.headers["content-type"]?.startsWith("text/event-stream")
            ? `event: message\ndata: ${renamed}\n\n`
            : renamed,
        );
      }
      res.writeHead(r.status, { ...whole(r.headers), "content-length": out.length });
      res.end(out);
    } catch (e) {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${to.pathname}`,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
