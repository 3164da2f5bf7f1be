// Which texts are npm package specs a registry answers: a name, a name with
// a version, a range or a dist-tag. Folders, files, git and URLs are not.
import npa from "npm-package-arg";

/** A package spec a registry answers, as npm reads it. */
export interface RegistrySpec {
  /** The text as given: `@jane/hello@^1.2`. */
  readonly raw: string;
  /** The package name: `@jane/hello`. */
  readonly name: string;
  /** What it asks for: a dist-tag (`latest` when none is given), a range or one version. */
  readonly kind: "tag" | "range" | "version";
  /** The tag, range or version itself: `latest`, `^1.2`, `1.2.3`. */
  readonly wanted: string;
}

/**
 * The registry spec `text` is, or `undefined` when npm would read it as
 * something else (a folder, a file, git, a URL) or not at all.
 *
 * @example
 * registrySpec("@jane/hello@^1.2"); // { name: "@jane/hello", kind: "range", wanted: "^1.2", … }
 * registrySpec("./hello"); // undefined
 */
export function registrySpec(text: string): RegistrySpec | undefined {
  let parsed: ReturnType<typeof npa>;
  try {
    parsed = npa(text);
  } catch {
    return undefined;
  }
  const { type, name, fetchSpec } = parsed;
  if (!name || !fetchSpec) return undefined;
  if (type !== "tag" && type !== "range" && type !== "version") return undefined;
  // A bare name is `npm install`'s default tag, which an upgrade then follows.
  if (text === name) return { raw: text, name, kind: "tag", wanted: "latest" };
  return { raw: text, name, kind: type, wanted: fetchSpec };
}
