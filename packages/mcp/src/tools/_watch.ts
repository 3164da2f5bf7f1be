// Who is told when the tool list changes: a 2025-era client once it sent
// `notifications/initialized`, and each open 2026-07-28 `subscriptions/listen`
// stream. While anyone listens, the active revision is polled; a new one
// sends each listener `notifications/tools/list_changed`.

import type { JsonObject } from "@rukh/json";
import type { StateDirectory } from "@rukh/profile";
import {
  idKey,
  isObject,
  JSONRPC_ERROR_CODES,
  META_SERVER_INFO,
  META_SUBSCRIPTION,
  type RequestId,
  RpcError,
} from "../protocol/index.js";

/** How often the active revision is checked while someone listens for list changes. */
const WATCH_INTERVAL_MS = 250;

/** What a watcher needs from its host. */
export interface WatchContext {
  readonly state: StateDirectory;
  /** Queues one message to the client. */
  send(message: object): void;
  /** A modern result, completed for its era. */
  complete(result: Record<string, unknown>): object;
  readonly serverInfo: { readonly name: string; readonly version: string };
  warn(message: string, data: Record<string, unknown>): void;
}

/** The list-change listeners of one host. */
export class ListWatcher {
  readonly #ctx: WatchContext;
  readonly #listeners = new Map<string, { id: RequestId; end: () => void }>();
  #legacy = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #seen: string | null | undefined;
  #busy = false;

  constructor(ctx: WatchContext) {
    this.#ctx = ctx;
  }

  /** A 2025-era client finished initializing: it hears of every change from now on. */
  legacyListens(): void {
    this.#legacy = true;
    this.#start();
  }

  /**
   * A `subscriptions/listen` stream: acknowledged at once, then open (its
   * promise pending) until `signal` aborts or the host stops; it settles with
   * the stream's final result.
   */
  listen(id: RequestId, params: JsonObject | undefined, signal: AbortSignal): Promise<object> {
    const wanted = params?.notifications;
    if (!isObject(wanted))
      throw new RpcError(
        JSONRPC_ERROR_CODES.invalidParams,
        "Invalid params: notifications must be an object",
      );
    const tools = wanted.toolsListChanged === true;
    this.#ctx.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: tools ? { toolsListChanged: true } : {},
        _meta: { [META_SUBSCRIPTION]: id },
      },
    });
    return new Promise((resolve) => {
      const key = idKey(id);
      const end = () => {
        this.#listeners.delete(key);
        if (this.#listeners.size === 0 && !this.#legacy) this.#pause();
        resolve(
          this.#ctx.complete({
            _meta: { [META_SUBSCRIPTION]: id, [META_SERVER_INFO]: this.#ctx.serverInfo },
          }),
        );
      };
      if (!tools || this.#stopped) {
        // Nothing this host can deliver was asked for (or it is ending): the stream ends at once.
        end();
        return;
      }
      this.#listeners.set(key, { id, end });
      signal.addEventListener("abort", end, { once: true });
      this.#start();
    });
  }

  /** Ends every stream with its final result and stops watching for good. */
  stop(): void {
    this.#stopped = true;
    this.#legacy = false;
    this.#pause();
    for (const l of [...this.#listeners.values()]) l.end();
  }

  #start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => void this.#check(), WATCH_INTERVAL_MS);
    void this.#check();
  }

  #pause(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#seen = undefined;
  }

  async #check(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const rid = await this.#ctx.state.activeRevisionId();
      const before = this.#seen;
      this.#seen = rid;
      if (before === undefined || before === rid || this.#stopped) return;
      if (this.#legacy)
        this.#ctx.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      for (const l of this.#listeners.values())
        this.#ctx.send({
          jsonrpc: "2.0",
          method: "notifications/tools/list_changed",
          params: { _meta: { [META_SUBSCRIPTION]: l.id } },
        });
    } catch (e) {
      this.#ctx.warn("cannot read the active revision", { error: String(e) });
    } finally {
      this.#busy = false;
    }
  }
}
