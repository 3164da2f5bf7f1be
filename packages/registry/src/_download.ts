// A resolved version's tarball: fetched once into memory, bounded, and
// checked against the integrity the registry published before anyone sees it.
import { boundedGet } from "./_fetch.js";
import type { NpmOptions } from "./_npm-config.js";
import type { Resolution } from "./_resolve.js";

/** Options of {@link downloadTarball}. */
export interface DownloadOptions {
  /** The most compressed bytes accepted (the installer's package limit). */
  readonly maxBytes: number;
  /** Called as bytes arrive, with the total when the registry says it. */
  readonly onProgress?: (received: number, total: number | undefined) => void;
}

/**
 * The tarball of a resolved version: all of it and matching its integrity,
 * or a `RegistryError` (a partial download is never returned).
 *
 * @example
 * const tgz = await downloadTarball(resolution, npm, { maxBytes: 33_554_432 });
 */
export function downloadTarball(
  r: Resolution,
  npm: NpmOptions,
  options: DownloadOptions,
): Promise<Buffer> {
  const what = `${r.name}@${r.version}`;
  return boundedGet(npm, {
    url: r.tarball,
    name: r.name,
    what: `the tarball of ${what}`,
    maxBytes: options.maxBytes,
    tooLarge: `the tarball of ${what} from registry ${r.registry} is larger than ${options.maxBytes} bytes`,
    integrity: r.integrity,
    ...(options.onProgress !== undefined && { onProgress: options.onProgress }),
  });
}
