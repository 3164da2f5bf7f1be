// Runs calls against a state directory in a process of its own, so the
// hostile suite can run it as another user, hand it descriptors and kill it.
// argv: <state root> <calls JSON> [sandbox program, or "none"]. Prints one
// "OUTCOME <json>" line per call; passthrough programs share its stdout.
// With no calls it only starts a core and prints "RECOVERED <ids>".
import { StateDirectory } from "@rukh/profile";
import { createInvocationCore } from "../../dist/index.js";

const [root, callsJson, sandboxProgram] = process.argv.slice(2);
const state = new StateDirectory(root);
const cores = new Map();
const coreFor = async (preset) => {
  if (!cores.has(preset))
    cores.set(
      preset,
      createInvocationCore({
        state,
        binding: { subject: "attacker", actor: "hostile-suite", taskAuthorityRef: "t", preset },
        ...(sandboxProgram !== undefined && {
          sandboxProgram: sandboxProgram === "none" ? null : sandboxProgram,
        }),
      }),
    );
  return cores.get(preset);
};
const calls = JSON.parse(callsJson);
if (calls.length === 0)
  process.stdout.write(`RECOVERED ${JSON.stringify((await coreFor("default")).recovered)}\n`);
await Promise.all(
  calls.map(async (c) => {
    const abort = new AbortController();
    if (c.cancelAfterMs !== undefined) setTimeout(() => abort.abort(), c.cancelAfterMs);
    const outcome = await (await coreFor(c.preset)).invoke({
      command: { identity: c.identity },
      // "$HOST_PID" stands for this host's pid, which the caller cannot know in advance.
      supplied: {
        values: new Map(
          Object.entries(c.values ?? {}).map(([k, v]) => [k, v === "$HOST_PID" ? process.pid : v]),
        ),
      },
      surface: c.args === undefined ? "mcp" : "cli",
      signal: abort.signal,
      ...(c.args !== undefined && { passthroughArgs: c.args }),
    });
    process.stdout.write(`OUTCOME ${JSON.stringify({ key: c.key, ...outcome })}\n`);
  }),
);
for (const core of cores.values()) await (await core).close();
