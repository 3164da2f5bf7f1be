// Which files of a package directory npm would publish. A directory with a
// package.json is an npm package too: whatever reaches an owner through a
// registry is what `npm pack` put in the tarball, so the files Rukh signs,
// checks and installs from that directory are exactly those. The rules are
// npm's (npm-packlist): the package.json `files` entries, the files npm always
// ships (package.json, README, LICENSE, `main`, `bin`), and under
// node_modules/ only the bundled dependencies and what they depend on. Where
// npm's answer would hang on ignore-file rules or patterns Rukh does not
// evaluate, the directory is refused rather than read differently.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DESCRIPTOR_PATH, ProfileError, SIGNATURE_PATH } from "../model/index.js";

/** A package.json larger than this is not read (`unsupported_package_json`). */
export const PACKAGE_JSON_MAX_BYTES = 1_048_576;

/** What npm would publish of a directory: asked of each path the walk meets. */
export interface PublishedFiles {
  /** Whether the directory at `path` (relative, `/`-separated) can hold published files. */
  enter(path: string): boolean;
  /** Whether the file at `path` is published. */
  keep(path: string): boolean;
}

/** Names npm leaves out by default: under a `files` entry their fate depends on rule order. */
const DEFAULT_IGNORED =
  /^(\.npmignore|\.gitignore|\.git|\.svn|\.hg|CVS|\.DS_Store|npm-debug\.log|\._.*|\..*\.swp|.*\.orig)$/;
/** Root files npm never publishes, whatever `files` says. */
const ROOT_NEVER = new Set([
  ".git",
  "node_modules",
  "package-lock.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
]);
/** Root files npm always publishes (npm-packlist's `!/readme{,.*[^~$]}` and friends, case-insensitive). */
const ROOT_ALWAYS = /^(package\.json|(readme|copying|license|licence)(\..*[^~$])?)$/i;
const PATTERN = /[*?[\]{}!]/;

function refuse(message: string): ProfileError {
  return new ProfileError("unsupported_package_json", message);
}

// biome-ignore lint/suspicious/noExplicitAny: package.json is any JSON, read member by member
function readManifest(dir: string, at = "package.json"): Record<string, any> | undefined {
  let text: string;
  try {
    const bytes = readFileSync(join(dir, at));
    if (bytes.length > PACKAGE_JSON_MAX_BYTES)
      throw refuse(`${at} is ${bytes.length} bytes; at most ${PACKAGE_JSON_MAX_BYTES} are read`);
    text = bytes.toString("utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  try {
    const v = JSON.parse(text);
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not an object");
    return v;
  } catch (e) {
    throw refuse(`${at} is not a JSON object: ${(e as Error).message}`);
  }
}

/** A plain relative path from package.json (`./bin/` → `bin`), or a refusal naming the member. */
function plainPath(value: unknown, member: string): string {
  if (typeof value !== "string")
    throw refuse(`package.json ${member} is not a string: ${JSON.stringify(value)}`);
  const path = value.replace(/^\.?\/+/, "").replace(/\/+$/, "");
  if (PATTERN.test(path) || path === "" || path.split("/").some((s) => s === "." || s === ".."))
    throw refuse(
      `package.json ${member} is ${JSON.stringify(value)}; Rukh reads plain paths only, so that the files it signs are the ones npm publishes: name each file or directory`,
    );
  return path;
}

/** The names of the dependencies a package's `dependencies` and `optionalDependencies` list. */
// biome-ignore lint/suspicious/noExplicitAny: as above
function runtimeDependencies(manifest: Record<string, any>): string[] {
  const names = (v: unknown) => (typeof v === "object" && v !== null ? Object.keys(v) : []);
  return [...names(manifest.dependencies), ...names(manifest.optionalDependencies)];
}

/**
 * Where the bundled dependencies of the root package lie, each found as Node
 * would from its dependent (its own node_modules first, then each one up),
 * with what they depend on in turn; a dependency not on disk is left out, as
 * npm leaves it out.
 */
// biome-ignore lint/suspicious/noExplicitAny: as above
function bundledLocations(dir: string, root: Record<string, any>): string[] {
  const declared = new Set(runtimeDependencies(root));
  const listed = root.bundleDependencies ?? root.bundledDependencies;
  const names: unknown[] =
    listed === true ? [...declared] : Array.isArray(listed) ? listed : listed ? [listed] : [];
  const found: string[] = [];
  const visit = (name: unknown, from: string): void => {
    if (typeof name !== "string") return;
    for (let base = from; ; ) {
      const location = `${base === "" ? "" : `${base}/`}node_modules/${name}`;
      const manifest = readManifest(dir, `${location}/package.json`);
      if (manifest !== undefined) {
        if (found.includes(location)) return;
        found.push(location);
        for (const dep of runtimeDependencies(manifest)) visit(dep, location);
        return;
      }
      if (base === "") return;
      const cut = base.lastIndexOf("/node_modules/");
      base = cut === -1 ? "" : base.slice(0, cut);
    }
  };
  for (const name of names) if (typeof name === "string" && declared.has(name)) visit(name, "");
  return found;
}

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/**
 * The files npm would publish of the package in `dir`, or `undefined` when
 * it has no package.json (then every file is the package's). Refuses
 * (`unsupported_package_json`) what Rukh cannot read as npm does: a `files`
 * pattern, an ignore file that would apply, a default-ignored name inside a
 * published directory, and a `files` list that leaves out the descriptor or
 * the signature.
 */
export function npmPublishedFiles(dir: string): PublishedFiles | undefined {
  const manifest = readManifest(dir);
  if (manifest === undefined) return undefined;
  const files =
    manifest.files === undefined
      ? undefined
      : Array.isArray(manifest.files)
        ? manifest.files.map((f: unknown, i: number) => plainPath(f, `files[${i}]`))
        : (() => {
            throw refuse("package.json files is not a list");
          })();
  const always = new Set<string>();
  for (const member of ["main", "browser"] as const)
    if (typeof manifest[member] === "string") always.add(plainPath(manifest[member], member));
  const bin = manifest.bin;
  if (typeof bin === "string") always.add(plainPath(bin, "bin"));
  else if (typeof bin === "object" && bin !== null)
    for (const [k, v] of Object.entries(bin)) always.add(plainPath(v, `bin.${k}`));
  if (files !== undefined)
    for (const needed of [DESCRIPTOR_PATH, SIGNATURE_PATH])
      if (!files.some((f: string) => under(needed, f)))
        throw refuse(
          `package.json files leaves out ${needed}, so npm would publish the package without it: add "${needed}" to files`,
        );
  const bundles = bundledLocations(dir, manifest);
  const inBundle = (path: string): boolean =>
    bundles.some((b) => {
      if (!under(path, b)) return false;
      const rest = path.slice(b.length + 1);
      const name = rest.slice(rest.lastIndexOf("/") + 1);
      // A bundled package keeps its own files; its node_modules/ are bundles of their own.
      return (
        !under(rest, "node_modules") &&
        !ROOT_NEVER.has(rest) &&
        name !== ".npmrc" &&
        !under(rest, ".git")
      );
    });
  const selected = (path: string): boolean => {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (name === ".npmrc") return false;
    if (!path.includes("/") && ROOT_NEVER.has(path)) return false;
    if (!path.includes("/") && ROOT_ALWAYS.test(path)) return true;
    if (always.has(path)) return true;
    if (files !== undefined) return files.some((f: string) => under(path, f));
    return true;
  };
  /** Throws when npm's rules for this kept path hang on what Rukh does not evaluate. */
  const checked = (path: string): void => {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (!DEFAULT_IGNORED.test(name)) return;
    // Beside a files list, the root's ignore files are simply not published.
    if (files !== undefined && !path.includes("/") && !files.includes(path)) return;
    throw refuse(
      `${path}: npm publishes or leaves out this name by rules Rukh does not evaluate; remove it, or list exactly what to publish in package.json files`,
    );
  };
  return {
    enter(path) {
      if (under(path, "node_modules"))
        return bundles.some((b) => under(b, path)) || inBundle(`${path}/x`);
      if (!path.includes("/") && ROOT_NEVER.has(path)) return false;
      if (files !== undefined && !files.some((f: string) => under(path, f) || under(f, path)))
        return [...always].some((a) => under(a, path));
      checked(path);
      return true;
    },
    keep(path) {
      if (under(path, "node_modules")) return inBundle(path);
      const kept = selected(path);
      if (kept || (files === undefined && !path.includes("/"))) checked(path);
      return kept;
    },
  };
}

/**
 * The package inside a tarball `npm pack` wrote, where every file lies under
 * `package/`; any other archive as it is. A Rukh archive has its descriptor
 * at the root.
 */
export function npmTarballContents<T>(files: Map<string, T>): Map<string, T> {
  const prefix = "package/";
  if (files.has(DESCRIPTOR_PATH) || files.size === 0) return files;
  if (![...files.keys()].every((p) => p.startsWith(prefix))) return files;
  return new Map([...files].map(([p, data]) => [p.slice(prefix.length), data]));
}
