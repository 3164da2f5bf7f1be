import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@rukh/testkit";
import { describe, expect, it } from "vitest";
import { INSPECTOR } from "../_helpers.js";
import { type Browser, launchBrowser, noBrowser } from "./_browser.js";
import { finalOf, journaledIds, journalSince, useRemoteHost } from "./_remote.js";

// The MCP Inspector's web interface, as a person uses it, in a headless
// Chromium: its server (launched with the endpoint's URL and a bearer token
// as a header) connects to the host, the page lists the tools, a tool is
// picked, its argument typed and the call run; nothing on the page may say
// it failed. Without a valid token the same page says it did. A screenshot
// of each page is left in the temporary directory.
const remote = useRemoteHost();

/** The Inspector's web server for the endpoint, sending `authorization`: the page's URL, and how to stop it. */
async function inspectorWeb(
  name: string,
  authorization: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const home = join(remote.work, name);
  const apiToken = randomBytes(16).toString("hex");
  const child: ChildProcess = spawn(
    INSPECTOR,
    [
      "--web",
      "--transport",
      "http",
      "--server-url",
      remote.resource,
      "--header",
      `Authorization: ${authorization}`,
    ],
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        HOST: "127.0.0.1",
        CLIENT_PORT: String(await freePort()),
        MCP_SANDBOX_PORT: "0",
        MCP_APP_ORIGIN_PORT: "0",
        MCP_INSPECTOR_API_TOKEN: apiToken,
        MCP_INSPECTOR_SECRET_STORE: "memory",
        MCP_STORAGE_DIR: join(home, "storage"),
        MCP_AUTO_OPEN_ENABLED: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the Inspector's web server did not start: ${out.slice(-2_000)}`)),
      60_000,
    );
    const seen = (d: Buffer) => {
      out += d.toString("utf8");
      const up = /is up and running at:\s*(http:\/\/\S+)/.exec(out);
      if (up !== null) {
        clearTimeout(timer);
        resolve(up[1]!);
      }
    };
    child.stdout?.on("data", seen);
    child.stderr?.on("data", seen);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the Inspector's web server exited (${code}): ${out.slice(-2_000)}`));
    });
  });
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Leaves a screenshot of the page in the temporary directory, and says where. */
async function keepScreenshot(browser: Browser, name: string): Promise<void> {
  const path = join(tmpdir(), `rukh-inspector-web-${name}-${Date.now()}.png`);
  writeFileSync(path, await browser.screenshot());
  console.log(`Inspector web UI (${name}): screenshot at ${path}`);
}

/** What the page shows that says something went wrong. */
const FAILURE = /\b(failed|error|unauthorized|denied|refused)\b/i;

/** Opens the page and turns the one server's connection on; resolves once it says Connected or Failed. */
async function connect(browser: Browser, url: string): Promise<string> {
  await browser.goto(url);
  await browser.waitFor("!!document.querySelector('input[role=switch]')", "its server switch");
  await browser.evaluate("document.querySelector('input[role=switch]').click()");
  return browser.waitFor<string>(
    `(() => { const t = document.body.innerText; return /\\bConnected\\b/.test(t) ? "connected" : /\\bFailed\\b/.test(t) ? "failed" : ""; })()`,
    "the connection's state",
    60_000,
  );
}

const unavailable = noBrowser();

describe("the MCP Inspector's web interface over Streamable HTTP", () => {
  it("connects with a token, lists the tools and calls one, and the page shows no error", async (ctx) => {
    if (unavailable !== undefined) {
      console.warn(`Inspector web UI skipped: ${unavailable}`);
      ctx.skip(unavailable);
      return;
    }
    const token = await remote.op.token("alice-agent", remote.resource, "mcp");
    const web = await inspectorWeb("web-ok", `Bearer ${token}`);
    const browser = await launchBrowser(join(remote.work, "chromium-ok"));
    try {
      expect(await connect(browser, web.url)).toBe("connected");
      // The handshake era: the Inspector's web client speaks legacy by default.
      await browser.waitFor(
        "document.body.innerText.includes('MCP 2025-11-25')",
        "the negotiated version",
      );
      await browser.evaluate(
        "[...document.querySelectorAll('label')].find((l) => l.innerText.trim() === 'Tools').click()",
      );
      const listed = await browser.waitFor<string[]>(
        `(() => { const b = [...document.querySelectorAll('button')].map((b) => b.innerText); return b.some((t) => t.includes(${JSON.stringify(remote.greet)})) && b; })()`,
        "the tool list",
      );
      expect(listed.some((t) => t.includes(remote.slow))).toBe(true);

      const since = await journaledIds(remote.root);
      await browser.evaluate(
        `[...document.querySelectorAll('button')].find((b) => b.innerText.includes(${JSON.stringify(remote.greet)})).click()`,
      );
      await browser.waitFor(
        "[...document.querySelectorAll('label')].some((l) => /^name\\b/.test(l.innerText.trim()))",
        "the tool's form",
      );
      // Typed as a keyboard would, into the field its label names.
      await browser.evaluate(
        "document.getElementById([...document.querySelectorAll('label')].find((l) => /^name\\b/.test(l.innerText.trim())).htmlFor).focus()",
      );
      await browser.type("web");
      await browser.evaluate(
        "[...document.querySelectorAll('button')].find((b) => b.innerText.trim() === 'Execute Tool').click()",
      );
      await browser.waitFor(
        "document.body.innerText.includes('hello web')",
        "the call's result",
        60_000,
      );
      const text = await browser.evaluate<string>("document.body.innerText");
      expect(text).toContain('"outcome": "succeeded"');
      expect(text.match(FAILURE)?.[0]).toBeUndefined();
      expect(browser.exceptions).toEqual([]);
      // It ran on the host under the token's subject.
      expect(await finalOf(remote.root, "fx.main/greet", since)).toMatchObject({
        outcome: "succeeded",
      });
      const start = (await journalSince(remote.root, since)).find(
        (r) => r.type === "start" && r.command === "fx.main/greet",
      );
      expect(start?.subject).toBe("alice-agent");
    } finally {
      await keepScreenshot(browser, "call").catch(() => {});
      await browser.close();
      await web.stop();
    }
  }, 240_000);

  it("with a token the endpoint refuses, the page says the connection failed", async (ctx) => {
    if (unavailable !== undefined) {
      ctx.skip(unavailable);
      return;
    }
    const web = await inspectorWeb("web-refused", "Bearer not-a-token");
    const browser = await launchBrowser(join(remote.work, "chromium-refused"));
    try {
      expect(await connect(browser, web.url)).toBe("failed");
      await browser.waitFor(
        "document.body.innerText.includes('401')",
        "the endpoint's 401 among its requests",
      );
    } finally {
      await keepScreenshot(browser, "refused").catch(() => {});
      await browser.close();
      await web.stop();
    }
  }, 240_000);
});
