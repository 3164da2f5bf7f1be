// The conformance suite's task fixtures as a signed extension, `fx.tasks`,
// beside the MCP suites' own two, and the names the suite calls them by.
// Rukh names every tool by a fingerprint of its revision; the suite calls
// `greet`, `slow_compute`, `failing_job` and `protocol_error_job` by those
// literal names. A front of the suite (the stdio bridge, or the HTTP
// renamer below) rewrites only those names, on the way in and out; every
// answer still comes from the host, which resolves the fingerprinted name.

import { FIXTURE_PUBLISHER, fixturePreset, machine, managed, str } from "@rukh/testkit";
import { makeExtension } from "@rukh/testkit/extension";
import { makeState, ownerConfig } from "../_helpers.js";

/** The suite's fixture tools: each command's id is the name the suite calls. */
export const SUITE_TOOLS = ["greet", "slow_compute", "failing_job", "protocol_error_job"] as const;

const command = (id: string, task: string, inputs: object[] = []) => ({
  id,
  path: ["tasks", id.replaceAll("_", "-")],
  summary: `The conformance suite's ${id}`,
  inputs,
  execute: managed(),
  machine: machine(),
  task,
});

/** `fx.tasks` 1.0.0 (the descriptor format that declares task support). */
const DESCRIPTOR = {
  format: "rukh.extension/3",
  id: "fx.tasks",
  version: "1.0.0",
  publisher: FIXTURE_PUBLISHER,
  commands: [
    command("greet", "forbidden", [str("name", { required: true })]),
    command("slow_compute", "optional", [
      { id: "seconds", type: "number", minimum: 0, maximum: 120, summary: "How long to compute" },
      str("label"),
    ]),
    command("failing_job", "required"),
    command("protocol_error_job", "optional"),
  ],
};

/**
 * The MCP suites' state (see makeState) with `fx.tasks` installed and
 * exposed too, its tools in the default preset.
 */
export async function conformanceState(): ReturnType<typeof makeState> {
  const s = await makeState();
  const extensions = ["fx.main", "fx.hidden", "fx.tasks"];
  await s.state.setConfig(
    JSON.stringify(
      ownerConfig({
        exposure: { extensions },
        presets: {
          default: fixturePreset({
            commands: extensions.map((e) => `${e}/*`),
            deadlineMs: 120_000,
          }),
        },
      }),
    ),
  );
  await s.state.install(
    await makeExtension(s.work, DESCRIPTOR, {
      folder: new URL("../fixtures/tasks/", import.meta.url),
    }),
  );
  return s;
}

/** A client-fit name of a suite fixture: `tasks_<id>__<tag><digits>`. */
const FITTED = new RegExp(`^tasks_(${SUITE_TOOLS.join("|")})__[g-z]*[0-9a-f]+$`);

/** The suite's name of `name` (a fixture's fingerprinted name), or `name` itself. */
export function suiteName(name: string): string {
  return FITTED.exec(name)?.[1] ?? name;
}

// biome-ignore lint/suspicious/noExplicitAny: wire messages are read member by member
type Message = any;

/**
 * A request with the suite's literal name of a fixture tool replaced by the
 * host's name for it (`hostName` looks it up), or the request unchanged.
 */
export async function toHost(
  m: Message,
  hostName: (suite: string) => Promise<string | undefined>,
): Promise<Message> {
  const name = m?.params?.name;
  if (m?.method !== "tools/call" || !(SUITE_TOOLS as readonly string[]).includes(name)) return m;
  const mapped = await hostName(name);
  return mapped === undefined ? m : { ...m, params: { ...m.params, name: mapped } };
}

/** An answer with each fixture tool of a `tools/list` named as the suite calls it. */
export function toSuite(m: Message): Message {
  const tools = m?.result?.tools;
  if (!Array.isArray(tools)) return m;
  return {
    ...m,
    result: { ...m.result, tools: tools.map((t: Message) => ({ ...t, name: suiteName(t.name) })) },
  };
}

/**
 * Looks a suite fixture's host name up in the host's tool list, paged by
 * `list` (a `tools/list` with that cursor, answered by the host), once.
 */
export function hostNames(
  list: (cursor: string | undefined) => Promise<Message>,
): (suite: string) => Promise<string | undefined> {
  let names: Promise<Map<string, string>> | undefined;
  const load = async () => {
    const found = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const page = await list(cursor);
      for (const t of page?.result?.tools ?? []) found.set(suiteName(t.name), t.name);
      cursor = page?.result?.nextCursor;
    } while (cursor !== undefined);
    return found;
  };
  return async (suite) => {
    names ??= load();
    return (await names).get(suite);
  };
}
