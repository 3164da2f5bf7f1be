// What one preset sees of the active revision: its projection under a
// naming, and the names of the tools the preset may list and call. Read once
// per revision (the four newest kept) and shared by every request of that
// preset, on stdio and over HTTP alike.

import { randomBytes } from "node:crypto";
import {
  ProfileError,
  type StateDirectory,
  type ToolProjection,
  visibleTools,
} from "@rukh/profile";
import type { McpEndpointSettings } from "../hosting/index.js";
import { JSONRPC_ERROR_CODES, RpcError } from "../protocol/index.js";

/** The launch preset is gone from the active profile: an explicit error, never an empty list. */
export const presetMissing = (): RpcError =>
  new RpcError(
    JSONRPC_ERROR_CODES.internalError,
    "the host's task preset is not defined in the active profile",
  );

/** Why a cursor key could not be written that leaves listing possible: no room, or a read-only file system. */
const NO_ROOM: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "EROFS"]);

/** The active revision as one preset sees it. */
export interface ToolView {
  readonly projection: ToolProjection;
  readonly visible: ReadonlySet<string>;
}

/** The views of one preset, under one endpoint's naming and development links. */
export class ToolViews {
  /** The development links the endpoint may see (none unless it names some). */
  readonly devExtensions: readonly string[];
  readonly #state: StateDirectory;
  readonly #preset: string;
  readonly #endpoint: McpEndpointSettings;
  readonly #views = new Map<string, ToolView>();
  #cursorKey: Buffer | undefined;
  #processKey: Buffer | undefined;

  constructor(state: StateDirectory, preset: string, endpoint: McpEndpointSettings) {
    this.#state = state;
    this.#preset = preset;
    this.#endpoint = endpoint;
    this.devExtensions = endpoint.devExtensions ?? [];
  }

  /** The view of the active revision, or `null` before anything is published. */
  async current(): Promise<ToolView | null> {
    const rid = await this.#state.activeRevisionId();
    if (rid === null) return null;
    const cached = this.#views.get(rid);
    if (cached !== undefined) return cached;
    let projection: ToolProjection;
    try {
      projection = await this.#state.projection(rid, this.#endpoint.naming);
    } catch (e) {
      // No partial list: the whole list fails, and says which package and why.
      if (e instanceof ProfileError)
        throw new RpcError(
          JSONRPC_ERROR_CODES.profileUnavailable,
          `the installed tools cannot be listed: ${e.message}`,
          { reason: e.code },
        );
      throw e;
    }
    let visible: Set<string>;
    try {
      visible = new Set(
        visibleTools(projection, this.#preset, this.devExtensions).map((t) => t.name),
      );
    } catch (e) {
      if (e instanceof ProfileError && e.code === "unknown_preset") throw presetMissing();
      throw e;
    }
    const view = { projection, visible };
    // Only the newest revisions matter; older names are answered as unknown anyway.
    if (this.#views.size >= 4) this.#views.delete(this.#views.keys().next().value!);
    this.#views.set(rid, view);
    return view;
  }

  /**
   * The state directory's cursor key (every host of it shares one). When it
   * cannot be created because its file system has no room (or cannot be
   * written), the list is still served: under a key of this process alone,
   * until the shared one can be made (each list tries again). A cursor then
   * holds only here; elsewhere it is a stale cursor, and the client lists
   * again from the start.
   */
  async cursorKey(): Promise<Buffer> {
    if (this.#cursorKey !== undefined) return this.#cursorKey;
    try {
      this.#cursorKey = await this.#state.cursorKey();
      return this.#cursorKey;
    } catch (e) {
      const code = (e as { cause?: { code?: string } }).cause?.code;
      if (!(e instanceof ProfileError) || !NO_ROOM.has(code ?? "")) throw e;
      this.#processKey ??= randomBytes(32);
      return this.#processKey;
    }
  }
}
