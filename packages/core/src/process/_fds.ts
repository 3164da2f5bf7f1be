import { readdirSync, readFileSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/**
 * How this process's open descriptors are found:
 *
 * - `proc` (Linux): `/proc/self/fd`, with each descriptor's flags, so only
 *   those without close-on-exec are named;
 * - `dev-fd` (macOS, the BSDs): `/dev/fd`, which tells no flags, so every
 *   descriptor above 2 is named (shadowing one that would have closed anyway
 *   costs the child a `/dev/null` descriptor, nothing more).
 *
 * @example
 * const listing: DescriptorListing = "dev-fd";
 */
export type DescriptorListing = "proc" | "dev-fd";

/** The listing of this system: `/proc` where Linux has it, `/dev/fd` elsewhere. */
export const SYSTEM_DESCRIPTOR_LISTING: DescriptorListing =
  process.platform === "linux" ? "proc" : "dev-fd";

/**
 * Descriptors above 2 that this process holds and a child could inherit:
 * whatever the launching shell or parent left open. Each is shadowed with
 * `/dev/null` in a command's spawn. None are found where the listing cannot
 * be read.
 */
export function inheritableDescriptors(
  listing: DescriptorListing = SYSTEM_DESCRIPTOR_LISTING,
): number[] {
  let names: string[];
  try {
    names = readdirSync(listing === "proc" ? "/proc/self/fd" : "/dev/fd");
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    if (listing === "dev-fd") {
      out.push(fd);
      continue;
    }
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags !== null && (Number.parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) out.push(fd);
    } catch {}
  }
  return out.sort((a, b) => a - b);
}
