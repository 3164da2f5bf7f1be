// What running an admitted call gets from its host: the execution context a
// managed or passthrough run is handed, built over the host's shared state.

import type { CoreHost, ExecutionContext } from "../call/index.js";
import { checkAtHandOver } from "../call/index.js";
import { launchNow, processStartTime, startWatchdog } from "../process/index.js";

/** The host's part in running a call: its environment, diagnostics, launches and process records. */
export function executionContextOf(host: CoreHost): ExecutionContext {
  const { journal, ready } = host;
  return {
    env: host.env,
    running: host.running,
    diagnostics: (invocationId, identity) =>
      host.sink.invocation(invocationId, identity, host.diagnosticsMax),
    launch: (request, hooks) =>
      ready !== undefined && !host.closed
        ? ready.launch(request, hooks)
        : launchNow(request, hooks),
    checkStore: (planned) => checkAtHandOver(host, planned),
    recordProcess(invocationId, planned, pid, leadsGroup) {
      if (pid === undefined) return undefined;
      const startTime = processStartTime(pid);
      if (startTime === null) return undefined;
      // Without this record recovery cannot end the process; the call still runs. It is on
      // disk before the call's final (whose flush covers it too); the call does not wait for it.
      void journal.appendSoftly({
        type: "process",
        invocationId,
        host: host.id,
        pid,
        pgid: leadsGroup ? pid : 0,
        startTime,
      });
      return planned.watchdogShell === null
        ? undefined
        : (startWatchdog({ shell: planned.watchdogShell, pid, startTime, leadsGroup }) ??
            undefined);
    },
  };
}
