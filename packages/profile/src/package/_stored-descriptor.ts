// The one reader of a stored package's descriptor. A CLI call, the core it
// runs in process and an MCP host all need the descriptor of the package
// they use; strict parsing and validation cost about ten times a plain
// JSON parse, so it is done once per process per file — as long as the
// file's stamp (device, inode, size, mtime, ctime) is the one it was parsed
// under — and not at all when the caller holds the descriptor publication
// validated from this very package (its part's first line, checked against
// the part's digest). It does not verify the package: callers check it
// (`checkStoredPackage`) before anything runs, and a file rewritten since it
// was parsed has another stamp, so it is parsed again.

import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { type ExtensionDescriptor, parseDescriptor } from "@rukh/descriptor";
import { DESCRIPTOR_PATH, PACKAGE_MAX_FILE_BYTES, ProfileError } from "../model/index.js";
import { checkStoredPackage } from "./_storecheck.js";

const parsed = new Map<
  string,
  { readonly stamp: string; readonly descriptor: ExtensionDescriptor }
>();

/**
 * The validated descriptor of `store/<digest>` under the state directory
 * `root`; `store_corrupt` when it cannot be read or is not a valid
 * descriptor. Check the package first: this only reads. `published` is the
 * descriptor publication validated from this package (read from its part):
 * it is taken as the file's parse instead of parsing the file.
 *
 * @example
 * await checkStoredPackage(root, digest);
 * const descriptor = await storedDescriptor(root, digest);
 */
export async function storedDescriptor(
  root: string,
  digest: string,
  published?: ExtensionDescriptor,
): Promise<ExtensionDescriptor> {
  const file = join(root, "store", digest, DESCRIPTOR_PATH);
  let h: Awaited<ReturnType<typeof open>>;
  try {
    h = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (cause) {
    throw new ProfileError("store_corrupt", `stored package ${digest} cannot be read`, { cause });
  }
  try {
    const st = await h.stat({ bigint: true });
    const stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    const known = parsed.get(file);
    if (known?.stamp === stamp) return known.descriptor;
    if (published !== undefined) {
      parsed.set(file, { stamp, descriptor: published });
      return published;
    }
    if (st.size > BigInt(PACKAGE_MAX_FILE_BYTES))
      throw new ProfileError(
        "store_corrupt",
        `stored package ${digest} has an oversized descriptor`,
      );
    const d = parseDescriptor(await h.readFile());
    if (!d.ok)
      throw new ProfileError("store_corrupt", `stored package ${digest} has no valid descriptor`, {
        issues: d.issues,
      });
    const after = await h.stat({ bigint: true });
    if (`${after.dev}:${after.ino}:${after.size}:${after.mtimeNs}:${after.ctimeNs}` === stamp)
      parsed.set(file, { stamp, descriptor: d.value });
    return d.value;
  } finally {
    await h.close();
  }
}

/**
 * A stored package's descriptor after checking the package against its
 * digest (`store_corrupt` when it was modified).
 *
 * @example
 * const descriptor = await loadStoredPackage(root, digest);
 */
export async function loadStoredPackage(
  home: string,
  digest: string,
): Promise<ExtensionDescriptor> {
  await checkStoredPackage(home, digest);
  return storedDescriptor(home, digest);
}
