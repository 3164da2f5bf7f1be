// Admitting one request: read what admission decides from (the active
// revision, the projection when the surface needs it, the stored package and
// the confinement probe), let the pure decision in _admission.ts decide, then
// plan the launch.

import type { ProfileRevision, ToolProjection } from "@rukh/profile";
import { checkStoredPackage, corruptExtension, ProfileError } from "@rukh/profile";
import type { HostBinding, InvocationRequest } from "../contract/index.js";
import { detectConfinement } from "../process/index.js";
import {
  type AdmissionInput,
  admit,
  checkRevision,
  type Planned,
  plan,
  type Rejection,
  targetOf,
} from "./_admission.js";
import type { CoreHost } from "./_core-host.js";
import { loadPackage, storeCorrupt } from "./_stored-package.js";

/** Reads what admission decides from, lets it decide, then plans the launch. */
export async function admitRequest(
  host: CoreHost,
  request: InvocationRequest,
  binding: HostBinding,
): Promise<Planned | Rejection> {
  const { state } = host.options;
  const activeRevisionId = await state.activeRevisionId();
  const stale = checkRevision(request, activeRevisionId);
  if (stale !== null) return stale;
  const id = activeRevisionId as string;
  // Only MCP needs the projection (tool names, exposure); a CLI call reads
  // its revision and verifies just its own package.
  const needsProjection = request.surface === "mcp" || "toolName" in request.command;
  let revision: ProfileRevision;
  let projection: ToolProjection | undefined;
  try {
    [revision, projection] = await Promise.all([
      state.readRevision(id),
      needsProjection ? state.projection(id) : undefined,
    ]);
  } catch (e) {
    return storeCorrupt(host, e, id);
  }
  const input: AdmissionInput = {
    request,
    binding,
    activeRevisionId,
    revision,
    projection,
    devAllowed: host.options.devExtensions ?? [],
  };
  const target = targetOf(input);
  if ("reject" in target) return target;
  // The package must still be what was signed, every time it is used.
  try {
    await checkStoredPackage(state.root, target.extension.digest);
  } catch (e) {
    return storeCorrupt(
      host,
      e instanceof ProfileError && e.code === "store_corrupt"
        ? corruptExtension(target.extension, e)
        : e,
      id,
      target.identity,
    );
  }
  const [descriptor, packageDir] = await loadPackage(host, target.extension.digest);
  const decision = admit(input, target, descriptor, packageDir);
  if ("reject" in decision) return decision;
  // The probe's answers are kept between processes, beside the journal.
  const confinement = await detectConfinement(
    host.options.sandboxProgram !== undefined
      ? host.options.sandboxProgram
      : revision.config.sandbox?.program,
    { stateDir: host.journalRoot },
  );
  return plan(decision, request, confinement, process.cwd());
}
