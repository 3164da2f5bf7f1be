// The handlers one binding's requests are answered with, on either
// transport: its tools, the list watcher that tells it of list changes, and
// the dispatcher that routes each request to them.

import type { McpLogger } from "../hosting/index.js";
import { completeFor, createDispatcher, type Dispatcher } from "../protocol/index.js";
import { hostTools, type ToolsContext } from "./_host-tools.js";
import { ListWatcher } from "./_watch.js";

/** What a binding's handlers are made with: its tools' context, and where they report. */
export interface HandlersContext extends ToolsContext {
  readonly logger: McpLogger;
  /** What the dispatcher reports of a client (the era it chose). */
  info(message: string, data: Record<string, unknown>): void;
  /** The 2025 version a request's client negotiated before it (over HTTP, where no session holds it). */
  readonly initializedAs?: string;
}

/** The handlers of one binding: answer requests through `dispatcher`; stop `watcher` when done. */
export interface BindingHandlers {
  readonly dispatcher: Dispatcher;
  readonly watcher: ListWatcher;
}

/** The tools, watcher and dispatcher of the binding `ctx` describes; both notify through `ctx.notify`. */
export function bindingHandlers(ctx: HandlersContext): BindingHandlers {
  const { state, settings, logger } = ctx;
  const { serverInfo } = settings;
  const tools = hostTools(ctx);
  const watcher = new ListWatcher({
    state,
    send: (message) => ctx.notify(message),
    complete: (result) => completeFor("modern", result, serverInfo),
    serverInfo,
    warn: (message, data) => logger.log("warn", message, data),
  });
  const dispatcher = createDispatcher({
    tools,
    watcher,
    settings,
    info: (message, data) => ctx.info(message, data),
    ...(ctx.initializedAs !== undefined && { initializedAs: ctx.initializedAs }),
  });
  return { dispatcher, watcher };
}
