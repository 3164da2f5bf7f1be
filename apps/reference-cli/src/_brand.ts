// The one setting a brand is renamed by: the command its package.json's
// `bin` names. The CLI's name, its executable (what `mcp config` prints) and
// its state-directory variable (`<BRAND>_HOME`) all follow from it.

/** A CLI's brand as its package.json names it. */
export interface Brand {
  /** The command name, e.g. `acme`: the one key of `bin`. */
  readonly name: string;
  /** The executable that runs it, relative to the package, e.g. `./bin/acme`. */
  readonly bin: string;
}

/** {@link brandOf}'s answer: the brand, or what is wrong with `bin`. */
export type BrandReading = { ok: true; value: Brand } | { ok: false; issues: string[] };

/**
 * Reads the brand from a package manifest: `bin` must name exactly one
 * command, by a relative path.
 *
 * @example
 * brandOf({ bin: { acme: "./bin/acme" } }); // { ok: true, value: { name: "acme", bin: "./bin/acme" } }
 */
export function brandOf(manifest: unknown): BrandReading {
  const bin = (manifest as { bin?: unknown } | null)?.bin;
  if (typeof bin !== "object" || bin === null || Array.isArray(bin))
    return {
      ok: false,
      issues: ['/bin: expected an object naming one command, e.g. {"acme": "./bin/acme"}'],
    };
  const entries = Object.entries(bin);
  if (entries.length !== 1)
    return {
      ok: false,
      issues: [`/bin: names ${entries.length} commands; expected exactly one, the brand`],
    };
  const [name, path] = entries[0]!;
  if (typeof path !== "string" || path.startsWith("/") || path.split("/").includes(".."))
    return {
      ok: false,
      issues: [`/bin/${name}: expected a path inside the package, e.g. "./bin/${name}"`],
    };
  return { ok: true, value: { name, bin: path } };
}
