// nginx from the distribution, as a load balancer in front of HTTP MCP
// replicas: started on a loopback port with a configuration of the test's
// own, in a directory of its own, in the foreground.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const NGINX = "/usr/sbin/nginx";

/** Why nginx cannot run here, or `undefined` when it can. */
export function nginxMissing(): string | undefined {
  if (!existsSync(NGINX)) return `${NGINX} is not installed (apt-get install nginx)`;
  const r = spawnSync(NGINX, ["-v"], { encoding: "utf8" });
  return r.status === 0 ? undefined : `${NGINX} -v failed: ${r.stderr}`;
}

/**
 * nginx on `127.0.0.1:port` balancing `upstreams` round-robin, streaming
 * answers as they come (event streams included), and never sending a POST
 * that reached one replica to another: a replica that dies mid-request is
 * a 502 to that client, never a second run. `headers` are set on every
 * proxied request (a client that cannot send a token gets one this way).
 */
export async function startNginx(
  dir: string,
  port: number,
  upstreams: readonly string[],
  headers: Readonly<Record<string, string>> = {},
) {
  mkdirSync(join(dir, "logs"), { recursive: true });
  const root = process.getuid?.() === 0;
  const conf = `${root ? "user root;\n" : ""}worker_processes 1;
daemon off;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "logs/error.log")} warn;
events { worker_connections 512; }
http {
  access_log ${join(dir, "logs/access.log")};
  client_body_temp_path ${join(dir, "body")};
  proxy_temp_path ${join(dir, "proxy")};
  fastcgi_temp_path ${join(dir, "fastcgi")};
  uwsgi_temp_path ${join(dir, "uwsgi")};
  scgi_temp_path ${join(dir, "scgi")};
  upstream replicas {
${upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=30s;`).join("\n")}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 60s;
      proxy_next_upstream error timeout;
${Object.entries(headers)
  .map(([k, v]) => `      proxy_set_header ${k} "${v.replace(/["\\$]/g, "")}";`)
  .join("\n")}
    }
  }
}
`;
  const file = join(dir, "nginx.conf");
  writeFileSync(file, conf);
  const child: ChildProcess = spawn(NGINX, ["-p", dir, "-c", file], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString("utf8");
  });
  // Listening once a TCP connection is accepted.
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`nginx ended: ${err}`);
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    stop: async () => {
      child.kill("SIGQUIT");
      await new Promise((r) => child.once("exit", r));
    },
    stderr: () => err,
  };
}
