// What a client pays to learn the tools before an agent can use any: the
// bytes and tokens of each listed tool and of each preset's whole list, from
// `rukh mcp serve` over stdio, against an MCP SDK 2.x server
// (`@modelcontextprotocol/server`) serving the same tools — the same names,
// titles, descriptions, annotations, input schemas and output schemas (each
// tool's closed outcome envelope, which is what a call of it returns), as an
// author would serve them with the SDK. Tokens are counted with a real
// tokenizer, js-tiktoken's o200k_base. The demo's state (the examples,
// trusted, installed and allowed as `pnpm demo` does) is what is listed.
// Targets: at most 1.1× the SDK per tool and per preset, and the demo's agent
// tools at most 1,350 bytes each on average, the envelope included.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { buildExamples } from "../../reference-cli/scripts/examples.mjs";
import { cleanEnv, RUKH, run, WORK } from "./_fixtures.mjs";
import { sdkListingServer } from "./_peers.mjs";
import { allTools, mcpSession } from "./_rpc.mjs";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const RATIO_TARGET = 1.1;
const DEMO_TOOL_TARGET = 1_350;
const encoder = new Tiktoken(o200kBase);
const PEER = "baseline: the MCP SDK 2.4 server";

/** Bytes and tokens of `value` as JSON text, as it travels in a list. */
function measure(value) {
  const text = JSON.stringify(value);
  return { bytes: Buffer.byteLength(text), tokens: encoder.encode(text).length };
}

/** The demo's state: the examples signed, trusted, installed, exposed and allowed. */
async function demoState() {
  const dir = join(WORK, "listing");
  const env = cleanEnv({ RUKH_HOME: join(dir, "home") });
  const packages = await buildExamples(join(dir, "packages"));
  run(
    RUKH,
    ["trust", "add", join(repo, "fixtures/keys/example-publisher.pub"), "--publisher", "acme"],
    env,
  );
  for (const p of Object.values(packages)) run(RUKH, ["ext", "install", p], env);
  run(RUKH, ["expose", "add", "acme.tools"], env);
  run(RUKH, ["preset", "allow", "default", "--action", "compute"], env);
  run(RUKH, ["preset", "allow", "agent", "acme.tools/*", "--action", "compute"], env);
  // The owner consents to serving the host-trusted default preset to the bench's clients.
  run(
    RUKH,
    ["preset", "consent", "default", "the bench's clients may run the examples unconfined"],
    env,
  );
  // The endpoint `mcp config` makes for a client that limits names to 64 characters.
  run(RUKH, ["mcp", "config", "--client", "claude-code"], env);
  return env;
}

/** What the SDK is given for `tool`: the same metadata and the same closed envelope as its output schema. */
function peerTool(tool) {
  // An author writing the schema for the SDK has no reason to name the dialect.
  const inputSchema = { ...tool.inputSchema };
  delete inputSchema.$schema;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    ...(tool.annotations !== undefined && { annotations: tool.annotations }),
    inputSchema,
    // The envelope is the tool's result, on either server: the peer lists it too.
    ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema }),
  };
}

async function listed(file, args, env) {
  const s = await mcpSession(file, args, env);
  try {
    return await allTools(s);
  } finally {
    await s.close();
  }
}

/** Each listed name's command identity, from `rukh tools list` of the same view (`--preset P` or `--endpoint E`). */
function identitiesOf(view, env) {
  const r = spawnSync(RUKH, ["--json", "tools", "list", ...view], { env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`rukh tools list ${view.join(" ")}: ${r.stderr}`);
  return new Map(JSON.parse(r.stdout).result.tools.map((t) => [t.name, t.identity]));
}

const within = (size, base) =>
  size.bytes <= RATIO_TARGET * base.bytes && size.tokens <= RATIO_TARGET * base.tokens;

export default async function listing(suite) {
  const env = await demoState();
  const misses = [];
  const views = [
    ["agent, profile names (the demo's)", ["--preset", "agent"]],
    ["agent, client-fit names (mcp config --client claude-code)", ["--endpoint", "claude-code"]],
    ["default, profile names", ["--preset", "default"]],
  ];
  for (const [label, view] of views) {
    const ours = await listed(RUKH, ["mcp", "serve", ...view], env);
    const identity = identitiesOf(view, env);
    const peerTools = ours.map((t) => peerTool(t));
    const peerFile = sdkListingServer(view.join("").replace(/\W+/g, "-"), peerTools);
    const peer = await listed(process.execPath, [peerFile], cleanEnv());
    let bytes = 0;
    for (const tool of ours) {
      const size = measure(tool);
      const base = measure(peer.find((p) => p.name === tool.name));
      bytes += size.bytes;
      suite.size(`listing: ${label}, per tool`, identity.get(tool.name), size, base, PEER);
      if (!within(size, base))
        misses.push(`${label}: ${identity.get(tool.name)} is over ${RATIO_TARGET}× the SDK's`);
    }
    const all = measure(ours);
    const base = measure(peer);
    suite.size("listing: whole list per preset", `${label}: ${ours.length} tools`, all, base, PEER);
    if (!within(all, base)) misses.push(`${label}: the list is over ${RATIO_TARGET}× the SDK's`);
    if (view[1] === "agent") {
      const mean = {
        bytes: Math.round(bytes / ours.length),
        tokens: Math.round(all.tokens / ours.length),
      };
      suite.size(
        "listing: the demo's agent tools, mean per tool",
        `${ours.length} tools`,
        mean,
        undefined,
        `target: ≤ ${DEMO_TOOL_TARGET} bytes`,
      );
      if (mean.bytes > DEMO_TOOL_TARGET)
        misses.push(
          `the demo's agent tools cost ${mean.bytes} bytes each, over ${DEMO_TOOL_TARGET}`,
        );
    }
  }
  if (misses.length > 0) throw new Error(`listing targets missed:\n${misses.join("\n")}`);
}
