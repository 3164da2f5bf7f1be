// The invocation core: one host binding, its journal and its running calls.
// Admission decides, execution runs, the host journal records; this file
// wires the host's life (_host-life.ts) to the steps of a call (call/_invoke.ts).

import { type CoreHost, invoke, invokeBuiltin } from "../call/index.js";
import {
  checkBinding,
  type InvocationCore,
  type InvocationCoreOptions,
  type InvocationHost,
  type InvocationHostOptions,
} from "../contract/index.js";
import { executionContextOf } from "./_host-execution.js";
import { closeHost, openHost } from "./_host-life.js";

/**
 * Creates the invocation core for one host binding over a state directory.
 * On start-up it reads the journal and finalizes every invocation that has a
 * start record but no final one, and whose host process is gone, as
 * `execution_failed`/`host_lost` (the command is never run again).
 *
 * @example
 * const core = await createInvocationCore({
 *   state: new StateDirectory(resolveStateDir({ brand: "acme" })),
 *   binding: { subject: "alice", actor: "cli", taskAuthorityRef: "local", preset: "default" },
 * });
 * const outcome = await core.invoke({ command: { identity: "acme.files/count_lines" },
 *   supplied: { values: new Map([["path", "src"]]) }, surface: "cli" });
 * if (outcome.outcome === "succeeded") console.log(outcome.commandResult);
 * await core.close();
 */
export async function createInvocationCore(
  options: InvocationCoreOptions,
): Promise<InvocationCore> {
  const binding = checkBinding(options.binding);
  const { host, opened } = await openCore(options);
  const own = opened.bound(binding);
  return {
    ...opened,
    binding: own.binding,
    invoke: own.invoke,
    invokeBuiltin: (request) => invokeBuiltin(host, own.binding, request),
  };
}

/**
 * Opens the invocation core with no binding of its own (see
 * {@link InvocationHost}): the same start-up, journal and recovery as
 * {@link createInvocationCore}, each call under the binding it is bound to.
 */
export async function openInvocationHost(options: InvocationHostOptions): Promise<InvocationHost> {
  return (await openCore(options)).opened;
}

/** A started host, and the core without a binding that serves calls on it. */
async function openCore(
  options: InvocationHostOptions,
): Promise<{ host: CoreHost; opened: InvocationHost }> {
  const started = await openHost(options);
  const { host, recovered } = started;
  const execution = executionContextOf(host);
  const opened: InvocationHost = {
    recovered,
    bound(other) {
      const checked = checkBinding(other);
      return {
        binding: checked,
        invoke: (request) => invoke(host, execution, checked, request),
      };
    },
    close: () => closeHost(started),
  };
  return { host, opened };
}
