// Hostile fixture commands: each tries one way past its confinement and
// reports what the system answered. The hostile suite runs them under the
// strict (and, where it says so, host-trusted) profile and checks from
// outside that nothing happened.
import { spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { promises as dns } from "node:dns";
import { readFileSync, writeFileSync, writeSync } from "node:fs";
import { connect, createServer } from "node:net";
import { runCommandProcess, textResult } from "@rukh/ipc";

const code = (e) => String(e?.code ?? e?.message ?? e);
const attempt = async (fn) => {
  try {
    return await fn();
  } catch (e) {
    return `denied: ${code(e)}`;
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const connected = (socket) =>
  new Promise((resolve, reject) => {
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", reject);
  });

await runCommandProcess({
  handlers: {
    "fx.hostile/signal": async (ctx) =>
      textResult(
        await attempt(() => {
          process.kill(ctx.inputs.pid, ctx.inputs.signal === "0" ? 0 : ctx.inputs.signal);
          return "signalled";
        }),
      ),
    "fx.hostile/tcp_connect": async (ctx) =>
      textResult(await attempt(() => connected(connect(ctx.inputs.port, "127.0.0.1")))),
    "fx.hostile/udp_send": async (ctx) =>
      textResult(
        await attempt(
          () =>
            new Promise((resolve, reject) => {
              const s = createSocket("udp4");
              s.once("error", reject);
              s.send("pwned", ctx.inputs.port, "127.0.0.1", (e) => {
                s.close();
                if (e) reject(e);
                else resolve("sent");
              });
            }),
        ),
      ),
    "fx.hostile/dns_lookup": async (ctx) =>
      textResult(
        await attempt(async () => {
          const r = new dns.Resolver({ timeout: 500, tries: 1 });
          r.setServers([`127.0.0.1:${ctx.inputs.port}`]);
          return `resolved ${await r.resolve4("example.com")}`;
        }),
      ),
    "fx.hostile/listen": async (ctx) =>
      textResult(
        await attempt(async () => {
          const server = createServer((s) => s.end("pwned"));
          await new Promise((resolve, reject) => {
            server.once("error", reject);
            server.listen(ctx.inputs.port, "127.0.0.1", resolve);
          });
          await sleep(ctx.inputs.hold_ms);
          server.close();
          return "listened";
        }),
      ),
    // "@name" is the abstract socket "\0name" (inputs cannot carry U+0000).
    "fx.hostile/unix_connect": async (ctx) => {
      const p = ctx.inputs.path;
      return textResult(
        await attempt(() => connected(connect(p.startsWith("@") ? `\0${p.slice(1)}` : p))),
      );
    },
    "fx.hostile/read": async (ctx) =>
      textResult(
        await attempt(() => `read: ${readFileSync(ctx.inputs.path, "utf8").slice(0, 64)}`),
      ),
    "fx.hostile/write_fd": async (ctx) =>
      textResult(
        await attempt(() => {
          writeSync(ctx.inputs.fd, "pwned through an inherited descriptor\n");
          return "written";
        }),
      ),
    "fx.hostile/write_file": async (ctx) =>
      textResult(
        await attempt(() => {
          writeFileSync(ctx.inputs.path, Buffer.alloc(ctx.inputs.bytes, 0x61));
          return "written";
        }),
      ),
    "fx.hostile/environment": async () => textResult(JSON.stringify(process.env)),
    "fx.hostile/hog": async () => {
      const kept = [];
      for (;;) kept.push(Buffer.alloc(16 << 20, 1));
    },
    // Leaves a grandchild behind: detached (its own session) and a double
    // fork, both carrying the marker in their command line. Then finishes,
    // hangs until cancelled, or hangs ignoring everything.
    "fx.hostile/leave_behind": async (ctx) => {
      const keep = [
        "-e",
        "process.on('SIGTERM',()=>{});setInterval(()=>{},1000)",
        ctx.inputs.marker,
      ];
      spawn(process.execPath, keep, { detached: true, stdio: "ignore" }).unref();
      const fork = `require('child_process').spawn(process.execPath, ${JSON.stringify(keep)}, {detached:true, stdio:'ignore'}).unref()`;
      spawn(process.execPath, ["-e", fork], { stdio: "ignore" });
      await sleep(300);
      if (ctx.inputs.ready !== "") writeFileSync(ctx.inputs.ready, "ready\n");
      if (ctx.inputs.after === "finish") return textResult("left");
      if (ctx.inputs.after === "deaf") process.on("SIGTERM", () => {});
      await new Promise((resolve) => {
        if (ctx.inputs.after === "hang") ctx.signal.addEventListener("abort", resolve);
      });
      return textResult("cancelled");
    },
    "fx.hostile/slow": async (ctx) => {
      await sleep(ctx.inputs.wait_ms);
      return textResult("slept");
    },
  },
});
