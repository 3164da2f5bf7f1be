/** Public packages under packages/. */
export function publicPackages(): { name: string; dir: string }[];
/** Packs every public package into `dest`; returns package name → tarball path. */
export function packWorkspace(dest: string): Map<string, string>;
