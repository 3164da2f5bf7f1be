// A headless Chromium driven over the Chrome DevTools Protocol on a pipe
// (--remote-debugging-pipe: NUL-terminated JSON messages on file
// descriptors 3 and 4), so a test needs the Debian browser and no npm driver.

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Readable, Writable } from "node:stream";

/** Where Debian installs Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** One page of a headless Chromium. */
export interface Browser {
  /** Opens `url` in the page. */
  goto(url: string): Promise<void>;
  /** The value of `expression`, evaluated in the page (promises awaited). */
  evaluate<T = unknown>(expression: string): Promise<T>;
  /** Waits until `expression` is truthy in the page, and returns its value. */
  waitFor<T = unknown>(expression: string, what: string, timeoutMs?: number): Promise<T>;
  /** Types `text` into the focused element, as a keyboard would. */
  type(text: string): Promise<void>;
  /** A PNG of the page as it is shown. */
  screenshot(): Promise<Buffer>;
  /** Uncaught exceptions the page threw, as it reported them. */
  readonly exceptions: string[];
  close(): Promise<void>;
}

/** Why no browser can be started here, or undefined when one can. */
export function noBrowser(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (Debian's chromium)`;
}

/** Starts a headless Chromium with its profile in `profile`, and opens one blank page. */
export async function launchBrowser(profile: string): Promise<Browser> {
  const child: ChildProcess = spawn(
    CHROMIUM,
    [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      // Nothing but the pages a test opens: no updates, sync or prefetching
      // reaching out of a machine whose network is closed.
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--remote-debugging-pipe",
      `--user-data-dir=${profile}`,
      "--window-size=1400,1000",
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    if (stderr.length < 20_000) stderr += d.toString("utf8");
  });
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const exceptions: string[] = [];
  let next = 0;
  let buf = Buffer.alloc(0);
  fromBrowser.on("data", (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    for (let end = buf.indexOf(0); end !== -1; end = buf.indexOf(0)) {
      const message = JSON.parse(buf.subarray(0, end).toString("utf8"));
      buf = buf.subarray(end + 1);
      const waiter = message.id === undefined ? undefined : pending.get(message.id);
      if (waiter !== undefined) {
        pending.delete(message.id);
        if (message.error !== undefined) waiter.reject(new Error(JSON.stringify(message.error)));
        else waiter.resolve(message.result);
      } else if (message.method === "Runtime.exceptionThrown") {
        const details = message.params.exceptionDetails;
        exceptions.push(details.exception?.description ?? details.text);
      }
    }
  });
  child.once("exit", () => {
    for (const w of pending.values())
      w.reject(new Error(`chromium exited: ${stderr.slice(-2_000)}`));
    pending.clear();
  });
  // biome-ignore lint/suspicious/noExplicitAny: CDP results are read member by member
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      toBrowser.write(
        `${JSON.stringify({ id, method, params, ...(sessionId !== undefined && { sessionId }) })}\0`,
      );
    });

  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const page = (method: string, params: object = {}) => send(method, params, sessionId);
  await page("Page.enable");
  await page("Runtime.enable");

  const evaluate = async <T>(expression: string): Promise<T> => {
    const r = await page("Runtime.evaluate", {
      expression,
      awaitPromise: true,
      returnByValue: true,
    });
    if (r.exceptionDetails !== undefined)
      throw new Error(
        `${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`,
      );
    return r.result.value as T;
  };
  return {
    exceptions,
    async goto(url) {
      await page("Page.navigate", { url });
    },
    evaluate,
    async waitFor<T>(expression: string, what: string, timeoutMs = 30_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await evaluate<T>(expression).catch(() => undefined);
        if (value) return value;
        if (Date.now() > deadline) throw new Error(`the page never showed ${what}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async type(text) {
      await page("Input.insertText", { text });
    },
    async screenshot() {
      const { data } = await page("Page.captureScreenshot", { format: "png" });
      return Buffer.from(data as string, "base64");
    },
    async close() {
      await send("Browser.close").catch(() => {});
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
