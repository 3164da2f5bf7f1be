// Listing a projection's tools: which tools a preset may see (admission
// asked early), and pages of them under a byte and tool bound, with
// HMAC-protected cursors bound to the revision and the visibility.
import { createHmac, timingSafeEqual } from "node:crypto";
import { fingerprint } from "@rukh/json";
import { presetNamed } from "../config/index.js";
import {
  CURSOR_MAX_LENGTH,
  extensionOf,
  listAnswerBytes,
  listPageBytes,
  MCP_TRANSPORT_LIMITS,
  type McpTool,
  PAGE_MAX_BYTES,
  PAGE_MAX_TOOLS,
  ProfileError,
  type ToolProjection,
} from "../model/index.js";
import { ANNOTATIONS_MAX_BYTES } from "./_annotations.js";
import { presetCheck } from "./_callable.js";
import { EXECUTION_MAX_BYTES } from "./_task-support.js";
import { checkedSize, projectionInternals } from "./_tool-projection.js";

function visibleFor(
  projection: ToolProjection,
  presetName: string,
  devAllowed: readonly string[] = [],
) {
  const i = projectionInternals(projection);
  const key = `${presetName}\0${devAllowed.join(",")}`;
  let v = i.visible.get(key);
  if (v === undefined) {
    const preset = presetNamed(projection.config, presetName);
    if (preset === undefined)
      throw new ProfileError(
        "unknown_preset",
        `preset "${presetName}" is not defined in this revision`,
      );
    // A development link's tools only where the owner named it.
    const hidden = new Set(projection.devExtensions.filter((e) => !devAllowed.includes(e)));
    // Listing is admission asked early: what the preset could not run, it is not shown.
    const refuse = presetCheck(preset);
    const tools = projection.tools.filter(
      (t) =>
        !hidden.has(extensionOf(t.identity)) &&
        refuse({ identity: t.identity, ...i.requests.get(t)! }) === null,
    );
    // The naming is bound too: the same position means another tool under another naming.
    const { namespace, style } = projection.naming;
    const binding = fingerprint([
      "rukh.visibility/2",
      namespace,
      style,
      presetName,
      tools.map((t) => t.identity),
    ]);
    v = { tools, binding };
    i.visible.set(key, v);
  }
  return v;
}

/**
 * The tools a preset may see, in name order: what every page of
 * {@link listTools} together holds, without building any page. A tool is
 * seen only when the preset could run it: one of its command patterns
 * matches and it grants every action and resource the command requests (as
 * admission decides). Tools of a development link are left out unless
 * `devAllowed` names its extension.
 *
 * @example
 * const visible = new Set(visibleTools(projection, "agent").map((t) => t.name));
 */
export function visibleTools(
  projection: ToolProjection,
  preset: string,
  devAllowed: readonly string[] = [],
): readonly McpTool[] {
  return visibleFor(projection, preset, devAllowed).tools;
}

/** Options of {@link listTools}. */
export interface ListToolsOptions {
  /** The task preset whose visibility applies. */
  readonly preset: string;
  /** The development links this endpoint's owner named for it (see {@link visibleTools}). */
  readonly devAllowed?: readonly string[];
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
  /** The HMAC key for cursors (see `StateDirectory.cursorKey`). */
  readonly cursorKey: Uint8Array;
  /**
   * The largest answer a page travels in (an endpoint's
   * `limits.responseMaxBytes`; default the MCP default): a page then holds at
   * most that less `LIST_ANSWER_RESERVE_BYTES` of tools.
   */
  readonly responseMaxBytes?: number;
}

/** One page of tools. */
export interface ToolPage {
  readonly tools: readonly McpTool[];
  readonly nextCursor?: string;
}

const CURSOR = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;
const CURSOR_PAYLOAD = /^v1:([0-9a-f]{64}):([0-9a-f]{64}):(0|[1-9][0-9]{0,8})$/;

function mac(key: Uint8Array, payload: string): Buffer {
  return createHmac("sha256", key).update(payload).digest();
}

/**
 * Lists the tools a preset may see, in name order: at most
 * {@link PAGE_MAX_TOOLS} tools and {@link PAGE_MAX_BYTES} encoded bytes per
 * page, fewer bytes when `responseMaxBytes` is tighter (see
 * `listPageBytes`). Cursors are HMAC-protected and bound to the revision, the visibility
 * binding and the position; a tampered or malformed cursor fails with
 * `invalid_cursor`, one from another revision or binding with `stale_cursor`.
 * A tool the page cannot hold alone fails with `tool_too_large`, naming the
 * smallest response limit that would carry it (a publication refuses an
 * endpoint whose limit is that small).
 *
 * @example
 * let page = listTools(projection, { preset: "default", cursorKey });
 * while (page.nextCursor) page = listTools(projection, { preset: "default", cursorKey, cursor: page.nextCursor });
 */
export function listTools(projection: ToolProjection, options: ListToolsOptions): ToolPage {
  if (options.cursorKey.length < 16)
    throw new ProfileError("invalid_key", "cursor key must have at least 16 bytes");
  const { tools, binding } = visibleFor(projection, options.preset, options.devAllowed);
  let start = 0;
  if (options.cursor !== undefined) {
    const c = options.cursor;
    const m = c.length <= CURSOR_MAX_LENGTH ? CURSOR.exec(c) : null;
    if (m === null)
      throw new ProfileError(
        "invalid_cursor",
        "cursor is malformed; request the list again without a cursor",
      );
    const expected = mac(options.cursorKey, m[1]!);
    const given = Buffer.from(m[2]!, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new ProfileError(
        "invalid_cursor",
        "cursor failed its integrity check; request the list again without a cursor",
      );
    const p = CURSOR_PAYLOAD.exec(Buffer.from(m[1]!, "base64url").toString("utf8"));
    if (p === null) throw new ProfileError("invalid_cursor", "cursor payload is malformed");
    if (p[1] !== projection.revisionId || p[2] !== binding)
      throw new ProfileError(
        "stale_cursor",
        "cursor belongs to another profile revision or visibility; request the list again without a cursor",
      );
    start = Number(p[3]);
    if (start > tools.length)
      throw new ProfileError("invalid_cursor", "cursor position is out of range");
  }
  const end = pageEnd(projection, tools, start, options.responseMaxBytes);
  const page = tools.slice(start, end);
  if (end >= tools.length) return { tools: page };
  const payload = Buffer.from(`v1:${projection.revisionId}:${binding}:${end}`).toString(
    "base64url",
  );
  return {
    tools: page,
    nextCursor: `${payload}.${mac(options.cursorKey, payload).toString("base64url")}`,
  };
}

/**
 * Where the page that starts at `start` ends: after {@link PAGE_MAX_TOOLS}
 * tools or before the first that would pass the page's bytes, each tool
 * with room for the annotations a preset gives it; throws `tool_too_large`
 * when not even the first fits.
 */
function pageEnd(
  projection: ToolProjection,
  tools: readonly McpTool[],
  start: number,
  responseMaxBytes = MCP_TRANSPORT_LIMITS.responseMaxBytes,
): number {
  const sizes = projectionInternals(projection).bytes;
  const max = listPageBytes(responseMaxBytes);
  let end = start;
  let used = 2;
  while (end < tools.length && end - start < PAGE_MAX_TOOLS) {
    const tool = tools[end]!;
    let size = sizes.get(tool);
    if (size === undefined) {
      size = checkedSize(tool);
      sizes.set(tool, size);
    }
    // Room for the annotations the preset gives the tool, whatever they are, and its task support.
    const room = size + ANNOTATIONS_MAX_BYTES + EXECUTION_MAX_BYTES;
    if (used + room > max) {
      if (end === start)
        throw new ProfileError(
          "tool_too_large",
          `a tools/list answer of at most ${responseMaxBytes} bytes cannot carry the tool ${tool.identity} (${room} bytes); it needs at least ${listAnswerBytes(room)}`,
        );
      break;
    }
    used += room;
    end++;
  }
  return end;
}
