// npm's configuration, read by npm's own reader (@npmcli/config): the
// built-in, global, user and project .npmrc files and npm_config_* variables,
// with npm's precedence, flattened to the options npm passes its fetcher.

import { fileURLToPath } from "node:url";
import Config from "@npmcli/config";
import npmDefinitions from "@npmcli/config/lib/definitions/index.js";

const OWN_FOLDER = fileURLToPath(new URL(".", import.meta.url));

/** npm's configuration flattened as npm hands it to its registry fetcher; opaque to callers. */
export interface NpmOptions {
  readonly flat: Readonly<Record<string, unknown>>;
}

/** Where {@link npmConfig} reads from. */
export interface NpmConfigSources {
  /** The project directory whose .npmrc applies (npm walks up from it as `npm` does). */
  readonly cwd: string;
  /** The environment (`npm_config_*`, `HOME`); it is copied, never changed. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * npm's configuration as `npm` would read it in `cwd`: registry, scoped
 * registries (`@jane:registry=…`), per-registry tokens, proxies, CA and
 * retries. No download cache is used: what is fetched is read once, in memory.
 *
 * @example
 * const npm = await npmConfig({ cwd: process.cwd(), env: process.env });
 */
export async function npmConfig(sources: NpmConfigSources): Promise<NpmOptions> {
  const { definitions, flatten, shorthands } = npmDefinitions;
  const config = new Config({
    definitions,
    shorthands,
    flatten,
    // No npm installation's built-in npmrc: the user's, the project's, the
    // global one and the environment are npm's configuration. npm reads
    // `<npmPath>/npmrc` as built-in: this package's own folder has none,
    // where the working folder may (and would be read twice as the user's).
    npmPath: OWN_FOLDER,
    argv: [],
    env: { ...sources.env },
    cwd: sources.cwd,
    warn: false,
  });
  await config.load();
  const { cache: _cache, ...flat } = config.flat;
  return { flat: { ...flat, preferOnline: true } };
}
