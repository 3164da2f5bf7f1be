// `tools list --check`: what each listed tool costs a client, measured on the
// tool exactly as the server sends it, against what each known client can
// take of it and the owner's own budget.

import { pointerAppend } from "@rukh/json";
import type { ListedTool } from "@rukh/profile";
import { CLIENT_READS, MCP_CLIENTS, type McpClient, nameLimit } from "./_clients.js";

/**
 * Bytes per token the estimate divides by. The CLI ships no tokenizer (a
 * vocabulary is megabytes); the demo's tool metadata runs 3.5 to 4.2 bytes
 * per token under o200k_base, so a third of the bytes, rounded up, is an
 * estimate that errs towards more tokens (the test of the check compares
 * it with js-tiktoken on every tool it lists).
 */
export const TOKEN_ESTIMATE_BYTES = 3;

/**
 * The tokens a text of `bytes` bytes is estimated at: a third, rounded up.
 *
 * @example
 * estimateTokens(900); // 300
 */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / TOKEN_ESTIMATE_BYTES);
}

/** One thing over a limit, and whose. */
export interface CheckProblem {
  readonly code:
    | "over_bytes"
    | "over_tokens"
    | "name_too_long"
    | "description_cut"
    | "schema_feature";
  /** The client whose limit it is; absent for the owner's budget. */
  readonly client?: McpClient;
  readonly message: string;
}

/** What one tool costs and what is over. */
export interface ToolCheck {
  readonly name: string;
  readonly identity: string;
  readonly bytes: number;
  readonly tokens: number;
  /** The name's length with each limited client's prefix. */
  readonly names: Readonly<Partial<Record<McpClient, number>>>;
  readonly problems: readonly CheckProblem[];
}

/** What a tool is checked against. */
export interface CheckOptions {
  /** The server's name in the clients (the brand): their prefixes hold it. */
  readonly server: string;
  readonly maxBytes?: number;
  readonly maxTokens?: number;
}

/** Checks one tool as the server lists it (`identity` travels beside it, not on the wire). */
export function checkTool(
  tool: ListedTool & { readonly identity: string },
  options: CheckOptions,
): ToolCheck {
  const { identity, ...wire } = tool;
  const bytes = Buffer.byteLength(JSON.stringify(wire));
  const tokens = estimateTokens(bytes);
  const problems: CheckProblem[] = [];
  if (options.maxBytes !== undefined && bytes > options.maxBytes)
    problems.push({
      code: "over_bytes",
      message: `the tool is ${bytes} bytes; the budget is ${options.maxBytes}`,
    });
  if (options.maxTokens !== undefined && tokens > options.maxTokens)
    problems.push({
      code: "over_tokens",
      message: `the tool is about ${tokens} tokens; the budget is ${options.maxTokens}`,
    });
  const names: Partial<Record<McpClient, number>> = {};
  for (const client of MCP_CLIENTS) {
    const limit = nameLimit(client, options.server);
    if (limit === null) continue;
    const length = limit.prefix.length + tool.name.length;
    names[client] = length;
    if (length > limit.max)
      problems.push({
        code: "name_too_long",
        client,
        message: `with its prefix "${limit.prefix}" the name has ${length} characters; ${client} takes at most ${limit.max}`,
      });
  }
  for (const client of MCP_CLIENTS) problems.push(...clientReads(client, tool));
  return { name: tool.name, identity, bytes, tokens, names, problems };
}

/** What `client` is known not to read of `tool`'s description and input schema. */
function clientReads(client: McpClient, tool: ListedTool): CheckProblem[] {
  const reads = CLIENT_READS[client];
  const out: CheckProblem[] = [];
  const max = reads.descriptionMax;
  if (max !== undefined && tool.description.length > max)
    out.push({
      code: "description_cut",
      client,
      message: `the description has ${tool.description.length} characters; ${client} gives its model the first ${max}`,
    });
  for (const keyword of reads.rootKeywords ?? [])
    if (Object.hasOwn(tool.inputSchema, keyword))
      out.push({
        code: "schema_feature",
        client,
        message: `the input schema uses ${keyword} at its root; ${client} cannot take it there`,
      });
  const flattened = reads.flattened ?? [];
  if (flattened.length > 0)
    for (const [keyword, at] of keywordsIn(tool.inputSchema, flattened, ""))
      out.push({
        code: "schema_feature",
        client,
        message: `the input schema uses ${keyword} at ${at === "" ? "its root" : at}; ${client} gives its model a string there`,
      });
  return out;
}

/** Where in `schema` each of `keywords` is used, as [keyword, JSON pointer of the schema holding it]. */
function keywordsIn(
  schema: unknown,
  keywords: readonly string[],
  at: string,
): [keyword: string, at: string][] {
  if (typeof schema !== "object" || schema === null) return [];
  const out: [string, string][] = [];
  if (!Array.isArray(schema))
    for (const k of keywords) if (Object.hasOwn(schema, k)) out.push([k, at]);
  for (const [key, value] of Object.entries(schema))
    if (!keywords.includes(key)) out.push(...keywordsIn(value, keywords, pointerAppend(at, key)));
  return out;
}

/** What a check reports: a line per tool and per problem, its JSON result, and whether any is over. */
export interface CheckReport {
  readonly human: string;
  readonly result: object;
  readonly over: number;
}

/** Where the checked list came from, for the report's last line. */
export interface CheckScope {
  readonly preset: string;
  readonly endpoint?: string;
  readonly server: string;
  readonly maxBytes?: number;
  readonly maxTokens?: number;
}

/**
 * The report of `checks`: per tool its bytes, estimated tokens and name
 * length with the limited clients' prefix, then each problem indented.
 */
export function checkReport(checks: readonly ToolCheck[], scope: CheckScope): CheckReport {
  const over = checks.filter((c) => c.problems.length > 0).length;
  const prefixed = (c: ToolCheck) => {
    const limit = nameLimit("claude-code", scope.server)!;
    return `name ${c.names["claude-code"]}/${limit.max} with ${limit.prefix}`;
  };
  const lines = checks.flatMap((c) => [
    `${c.name}  ${c.bytes} bytes, ~${c.tokens} tokens, ${prefixed(c)}`,
    ...c.problems.map((p) => `  over: ${p.message}`),
  ]);
  const at = scope.endpoint === undefined ? "" : ` at endpoint ${scope.endpoint}`;
  lines.push(
    `${checks.length} tools checked for preset ${scope.preset}${at}: ${over === 0 ? "none over" : `${over} over`}`,
    `tokens are estimated as bytes / ${TOKEN_ESTIMATE_BYTES}, rounded up`,
  );
  return {
    human: lines.join("\n"),
    result: {
      preset: scope.preset,
      ...(scope.endpoint !== undefined && { endpoint: scope.endpoint }),
      server: scope.server,
      budget: {
        ...(scope.maxBytes !== undefined && { maxBytes: scope.maxBytes }),
        ...(scope.maxTokens !== undefined && { maxTokens: scope.maxTokens }),
      },
      tokenEstimate: `bytes / ${TOKEN_ESTIMATE_BYTES}, rounded up`,
      tools: checks,
      over,
    },
    over,
  };
}
