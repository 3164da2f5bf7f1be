// Where a brand's state directory is. It needs only node:os and node:path,
// so the CLI's fast path takes it from `@rukh/profile/route-cache` without
// loading the rest of the profile: one rule for every reader.

import { homedir } from "node:os";
import { join } from "node:path";

/** Options of {@link resolveStateDir}. */
export interface StateDirOptions {
  /** Explicit directory (e.g. from `--home`); the brand's variable still wins. */
  readonly home?: string;
  /** Brand name: its `<BRAND>_HOME` variable and XDG folder; defaults to `"rukh"`. */
  readonly brand?: string;
  /** Environment to read; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The environment variable naming a brand's state directory: the brand in
 * upper case, every other character `_`, then `_HOME` (`acme` →
 * `ACME_HOME`, `my-cli` → `MY_CLI_HOME`, `rukh` → `RUKH_HOME`).
 *
 * @example
 * stateDirVariable("acme"); // "ACME_HOME"
 */
export function stateDirVariable(brand: string): string {
  return `${brand.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_HOME`;
}

/**
 * The environment variable that gives one host of a brand its journal
 * directory, overriding the owner configuration's `journal.dir`: the brand
 * as in {@link stateDirVariable}, then `_JOURNAL_DIR` (`acme` →
 * `ACME_JOURNAL_DIR`, `rukh` → `RUKH_JOURNAL_DIR`).
 *
 * @example
 * journalDirVariable("acme"); // "ACME_JOURNAL_DIR"
 */
export function journalDirVariable(brand: string): string {
  return `${brand.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_JOURNAL_DIR`;
}

/**
 * The options a brand's process gives its `StateDirectory`: the brand (its
 * refusals name the brand's variable) and the journal directory its
 * `<BRAND>_JOURNAL_DIR` names, when set and non-empty.
 *
 * @example
 * const state = new StateDirectory(root, brandStateOptions("acme", process.env));
 */
export function brandStateOptions(
  brand: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { readonly brand: string; readonly journalDir?: string } {
  const journalDir = env[journalDirVariable(brand)];
  return journalDir ? { brand, journalDir } : { brand };
}

/**
 * Variables other tools own: a brand whose `<BRAND>_HOME` is one of them
 * would take that tool's directory for its state (and `mcp config` would
 * write it into client configurations).
 */
export const FOREIGN_STATE_VARIABLES: ReadonlySet<string> = new Set([
  "ANDROID_HOME",
  "ANT_HOME",
  "CARGO_HOME",
  "CATALINA_HOME",
  "CODEX_HOME",
  "GRADLE_HOME",
  "HADOOP_HOME",
  "JAVA_HOME",
  "JDK_HOME",
  "JRE_HOME",
  "MAVEN_HOME",
  "PNPM_HOME",
  "RUSTUP_HOME",
  "SPARK_HOME",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
]);

/**
 * The state directory: the brand's `<BRAND>_HOME`, else `options.home`, else
 * `$XDG_STATE_HOME/<brand>`, else `~/.local/state/<brand>`.
 *
 * @example
 * const state = new StateDirectory(resolveStateDir({ brand: "acme" }));
 */
export function resolveStateDir(options: StateDirOptions = {}): string {
  const env = options.env ?? process.env;
  const brand = options.brand ?? "rukh";
  const named = env[stateDirVariable(brand)];
  if (named) return named;
  if (options.home) return options.home;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, brand);
  return join(homedir(), ".local", "state", brand);
}
