import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { removeDir } from "../src/index.js";
import { NGINX, nginxConfig, nginxMissing } from "../src/nginx.js";

// The remote MCP guide shows the nginx configuration the replicas suite runs
// nginx with: the two cannot drift apart, but for where a test keeps its
// files and runs nginx.
const GUIDE = new URL("../../../docs/mcp-remote.md", import.meta.url);

/** Where a test's nginx keeps its files, and how it runs: the test kit's own. */
const TEST_ONLY = new Set([
  "user",
  "daemon",
  "pid",
  "error_log",
  "access_log",
  "client_body_temp_path",
  "proxy_temp_path",
  "fastcgi_temp_path",
  "uwsgi_temp_path",
  "scgi_temp_path",
]);

/** Each directive of an nginx configuration with the blocks it is in, comments left out. */
function directives(conf: string): string[] {
  const tokens = conf.replace(/#[^\n]*/g, "").match(/"[^"]*"|[{};]|[^\s{};"]+/g) ?? [];
  const blocks: string[] = [];
  const found: string[] = [];
  let words: string[] = [];
  for (const t of tokens) {
    if (t === "{") blocks.push(words.join(" "));
    else if (t === "}") blocks.pop();
    else if (t === ";") {
      if (!TEST_ONLY.has(words[0]!)) found.push([...blocks, words.join(" ")].join(" > "));
    } else {
      words.push(t);
      continue;
    }
    words = [];
  }
  return found;
}

/** The guide's nginx configuration: the first nginx block of its replicas section. */
function guideConfig(): string {
  const guide = readFileSync(GUIDE, "utf8");
  const section = guide.slice(guide.indexOf("## 5. Replicas behind nginx"));
  const block = section.match(/```nginx\n([\s\S]*?)```/)?.[1];
  if (block === undefined) throw new Error(`${GUIDE.pathname} shows no nginx block in section 5`);
  return block;
}

it("shows in the guide the nginx configuration the test kit runs, but for where it keeps its files", () => {
  const block = guideConfig();
  const kit = nginxConfig({
    dir: "/tmp/nginx",
    port: 8080,
    upstreams: ["127.0.0.1:8081", "127.0.0.1:8082"],
    asRoot: true,
  });
  expect(directives(block)).toEqual(directives(kit));
  // What carries 500 concurrent requests is there.
  expect(directives(block)).toEqual(
    expect.arrayContaining(["worker_rlimit_nofile 8192", "events > worker_connections 4096"]),
  );
});

// Its defaults (logs, pid file, temporary files) are where the distribution's
// nginx puts them: only root may check it as it stands.
it.skipIf(nginxMissing() !== undefined || process.getuid?.() !== 0)(
  "shows in the guide a configuration nginx accepts",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "rukh-nginx-guide-"));
    try {
      writeFileSync(join(dir, "nginx.conf"), guideConfig());
      const r = spawnSync(NGINX, ["-t", "-p", dir, "-c", join(dir, "nginx.conf")], {
        encoding: "utf8",
      });
      expect(r.stderr).toContain("test is successful");
      expect(r.status).toBe(0);
    } finally {
      removeDir(dir);
    }
  },
);
