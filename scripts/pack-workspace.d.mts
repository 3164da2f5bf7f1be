/** Public packages under packages/. */
export function publicPackages(): { name: string; dir: string; files: string[] }[];
/** Why the workspace cannot be packed yet (not installed, not built), in one line naming what to run; `undefined` when it can. */
export function notPackable(): string | undefined;
/** Packs every public package into `dest`; returns package name → tarball path. */
export function packWorkspace(dest: string): Map<string, string>;
/** pnpm as the workspace pins it: `["pnpm"]` when on PATH, else `["npx", "-y", "pnpm@<version>"]`. */
export function pnpm(): string[];
