// nginx from the distribution, as a load balancer in front of HTTP MCP
// replicas: started on a loopback port with the configuration the remote
// MCP guide shows (its parts that matter are checked against the guide), in
// a directory of its own, in the foreground.

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

/** What {@link nginxConfig} writes a configuration for. */
export interface NginxConfigOptions {
  /** The directory nginx runs in: its pid file, logs and temporary files. */
  readonly dir: string;
  /** The loopback port it listens on. */
  readonly port: number;
  /** The replicas, `host:port` each. */
  readonly upstreams: readonly string[];
  /** Set on every proxied request (a client that cannot send a token gets one this way). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Whether nginx runs as root (its workers then stay root, to write in `dir`). */
  readonly asRoot?: boolean;
}

/**
 * The nginx configuration of the guide's "Replicas behind nginx", with what a
 * test needs besides: in the foreground, its pid file, logs and temporary
 * files in `dir`. Its connection limits carry 500 concurrent requests (each
 * holds two connections, the client's and a replica's; nginx's default of
 * 512 per worker resets about half of them). It passes only requests whose
 * target is a path, and gives the replicas each client's address in
 * `X-Forwarded-For`, replacing whatever the client sent.
 *
 * @example
 * writeFileSync(join(dir, "nginx.conf"), nginxConfig({ dir, port: 8080, upstreams: ["127.0.0.1:8081"] }));
 */
export function nginxConfig(options: NginxConfigOptions): string {
  const { dir, port, upstreams, headers = {} } = options;
  return `${options.asRoot === true ? "user root;\n" : ""}worker_processes auto;
worker_rlimit_nofile 8192;
daemon off;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "logs/error.log")} warn;
events { worker_connections 4096; }
http {
  access_log ${join(dir, "logs/access.log")};
  client_body_temp_path ${join(dir, "body")};
  proxy_temp_path ${join(dir, "proxy")};
  fastcgi_temp_path ${join(dir, "fastcgi")};
  uwsgi_temp_path ${join(dir, "uwsgi")};
  scgi_temp_path ${join(dir, "scgi")};
  upstream rukh_mcp {
${upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=30s;`).join("\n")}
    keepalive 16;
    keepalive_timeout 4s;
  }
  server {
    listen 127.0.0.1:${port};
    if ($request !~ "^\\S+ /") { return 400; }
    location / {
      proxy_pass http://rukh_mcp;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 120s;
      proxy_next_upstream error timeout;
${Object.entries(headers)
  .map(([k, v]) => `      proxy_set_header ${k} "${v.replace(/["\\$]/g, "")}";`)
  .join("\n")}
    }
  }
}
`;
}

/**
 * nginx on `127.0.0.1:port` balancing `upstreams` round-robin, streaming
 * answers as they come (event streams included), and never sending a POST
 * that reached one replica to another: a replica that dies mid-request is
 * a 502 to that client, never a second run. `headers` are set on every
 * proxied request (see {@link nginxConfig}).
 */
export async function startNginx(
  dir: string,
  port: number,
  upstreams: readonly string[],
  headers: Readonly<Record<string, string>> = {},
) {
  mkdirSync(join(dir, "logs"), { recursive: true });
  const file = join(dir, "nginx.conf");
  writeFileSync(
    file,
    nginxConfig({ dir, port, upstreams, headers, asRoot: process.getuid?.() === 0 }),
  );
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
