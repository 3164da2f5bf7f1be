import { readdirSync, readFileSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/**
 * Descriptors above 2 that this process holds without close-on-exec, so a
 * child would inherit them: whatever the launching shell or parent left open
 * (Node opens its own with close-on-exec). Linux only; elsewhere none are
 * found.
 */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags !== null && (Number.parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) out.push(fd);
    } catch {}
  }
  return out.sort((a, b) => a - b);
}
