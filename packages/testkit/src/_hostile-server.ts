// The program behind `startHostileRegistry`: an npm registry that lies on
// purpose, on two loopback ports, in a process of its own (a test's CLI runs
// synchronously in the test's). What it serves per package is set over its
// control path; every other request is recorded with its headers and port.

import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  CONTROL,
  type HostileRequest as RecordedRequest,
  type ServedPackage,
} from "./hostile-registry.js";

const packages = new Map<string, ServedPackage>();
const recorded: RecordedRequest[] = [];
const trickleMs = Number(process.argv[2] ?? "1500");
const bases = { registry: "", second: "" };

function tarballPath(name: string, version: string): string {
  return `/${encodeURIComponent(name)}/-/${encodeURIComponent(version)}.tgz`;
}

function packument(p: ServedPackage): object {
  const versions = Object.entries(p.versions);
  const latest = versions.at(-1)?.[0];
  return {
    name: p.name,
    "dist-tags": p.distTags ?? (latest === undefined ? {} : { latest }),
    versions: Object.fromEntries(
      versions.map(([version, v]) => {
        const bytes = Buffer.from(v.tarball, "base64");
        const integrity =
          v.integrity === undefined
            ? `sha512-${createHash("sha512").update(bytes).digest("base64")}`
            : v.integrity;
        const base = v.serve === "second-port" ? bases.second : bases.registry;
        return [
          version,
          {
            name: p.name,
            version,
            dist: {
              tarball: `${base}${tarballPath(p.name, version).slice(1)}`,
              ...(integrity !== null && { integrity }),
              ...(v.shasum !== undefined && { shasum: v.shasum }),
            },
          },
        ];
      }),
    ),
  };
}

/** Headers, then one space every `trickleMs`, until the client goes away. */
function trickle(res: ServerResponse, type: string): void {
  res.writeHead(200, { "content-type": type });
  res.write(" ");
  const timer = setInterval(() => res.write(" "), trickleMs);
  res.on("close", () => clearInterval(timer));
}

function control(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  // A test's client must not reuse a connection the server may have closed while it waited.
  res.setHeader("connection", "close");
  if (req.method === "PUT" && req.url === `${CONTROL}package`) {
    const p = JSON.parse(body.toString("utf8")) as ServedPackage;
    packages.set(p.name, p);
    res.writeHead(204).end();
  } else if (req.method === "GET" && req.url === `${CONTROL}requests`) {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(recorded));
    recorded.length = 0;
  } else res.writeHead(404).end();
}

function tarball(port: RecordedRequest["port"], path: string, res: ServerResponse): boolean {
  for (const p of packages.values())
    for (const [version, v] of Object.entries(p.versions)) {
      if (tarballPath(p.name, version) !== path) continue;
      if (v.serve === "redirect" && port === "registry")
        res.writeHead(302, { location: `${bases.second}${path.slice(1)}` }).end();
      else if (v.serve === "loop") res.writeHead(302, { location: path }).end();
      else if (v.serve === "trickle") trickle(res, "application/octet-stream");
      else {
        const bytes = Buffer.from(v.tarball, "base64");
        res.writeHead(200, {
          "content-type": "application/octet-stream",
          "content-length": bytes.length,
        });
        res.end(bytes);
      }
      return true;
    }
  return false;
}

function answer(port: RecordedRequest["port"], req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? "/").split("?")[0]!;
  recorded.push({ port, method: req.method ?? "", url: req.url ?? "", headers: req.headers });
  if (tarball(port, path, res)) return;
  const p = port === "registry" ? packages.get(decodeURIComponent(path.slice(1))) : undefined;
  if (p === undefined) {
    res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
    return;
  }
  if (p.trickle === true) trickle(res, "application/json");
  else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument(p)));
}

function server(port: RecordedRequest["port"]) {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (port === "registry" && req.url?.startsWith(CONTROL))
        control(req, res, Buffer.concat(chunks));
      else answer(port, req, res);
    });
  });
}

function listen(s: ReturnType<typeof createServer>): Promise<string> {
  return new Promise((resolve) =>
    s.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}/`),
    ),
  );
}

bases.registry = await listen(server("registry"));
bases.second = await listen(server("second"));
process.stdout.write(`${JSON.stringify(bases)}\n`);
