// Types of guides.mjs, for the test that imports it.

/** Which regions each guide holds, by path from the repository's root. */
export declare const GUIDES: Readonly<Record<string, readonly string[]>>;

/** Every region's text, by name, as the declarations produce it. */
export declare function generatedRegions(): Promise<Map<string, string>>;

/** `text` (the guide `file`) with each of the regions `names` replaced by its text in `regions`. */
export declare function withRegions(
  text: string,
  regions: ReadonlyMap<string, string>,
  names: readonly string[],
  file: string,
): string;

/** The guides under `root` whose regions differ from the declarations. */
export declare function guideDrift(
  root: string,
): Promise<{ readonly file: string; readonly regions: readonly string[] }[]>;
