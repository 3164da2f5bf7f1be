// A call's stored package: read once per host, checked every time it is
// used, and what a failed check means for the call (a refusal before anything
// runs, not a refusal of the caller).

import { realpath } from "node:fs/promises";
import { join } from "node:path";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import { checkStoredPackage, ProfileError, storedDescriptor } from "@rukh/profile";
import { CoreError } from "../contract/index.js";
import type { Planned, Rejection } from "./_admission.js";
import type { CoreHost } from "./_core-host.js";

/** The descriptor and directory of a stored package, read once per host. */
export async function loadPackage(
  host: CoreHost,
  digest: string,
): Promise<[ExtensionDescriptor, string]> {
  let loaded = host.packages.get(digest);
  if (loaded === undefined) {
    const root = host.options.state.root;
    const dir = await realpath(join(root, "store", digest));
    let descriptor: ExtensionDescriptor;
    try {
      descriptor = await storedDescriptor(root, digest);
    } catch (e) {
      throw new CoreError("state_unavailable", (e as Error).message);
    }
    loaded = [descriptor, dir];
    host.packages.set(digest, loaded);
  }
  return loaded;
}

/** A stored package that fails its check ends the call before anything runs; other errors propagate. */
export function storeCorrupt(
  host: CoreHost,
  e: unknown,
  revisionId: string,
  identity?: string,
): Rejection {
  if (!(e instanceof ProfileError) || e.code !== "store_corrupt") throw e;
  host.sink.logger.error({ err: e, command: identity }, "a stored package failed its check");
  return {
    reject: "store_corrupt",
    revisionId,
    ...(identity !== undefined && { identity }),
    message: `an installed package has been modified since it was installed; nothing was run (${e.message})`,
  };
}

/** The check at hand-over: `null` when the package is what was signed, else why nothing may run. */
export async function checkAtHandOver(host: CoreHost, planned: Planned): Promise<string | null> {
  try {
    await checkStoredPackage(host.options.state.root, planned.digest);
    return null;
  } catch (e) {
    try {
      return storeCorrupt(host, e, planned.revisionId, planned.command.identity).message;
    } catch {
      return `the installed package cannot be checked (${(e as Error).message}); nothing was run`;
    }
  }
}
