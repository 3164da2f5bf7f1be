// What the author's commands share: new files that never replace old ones,
// a private key read only when it is safe to use, the vendored runtime, and
// the words of a package report.

import {
  closeSync,
  constants,
  cpSync,
  existsSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { terminalBlock } from "@rukh/cli";
import type { PackageReport } from "@rukh/profile";
import { plural, Refusal, UsageError } from "../kit/index.js";
import { deniedBecause } from "./_key-folder.js";

/** A PEM Ed25519 private key is about 120 bytes; anything much larger is not one. */
const PRIVATE_KEY_MAX_BYTES = 4_096;

/** Writes a new file (never over an existing one) with `mode`, whatever the umask. */
export function writeNew(path: string, data: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST")
      throw new UsageError(`${path} already exists; keygen never replaces a key`);
    const denied = deniedBecause(code);
    if (denied !== undefined)
      throw new UsageError(
        `cannot write ${path}: ${denied}; expected a folder you can write to (--out)`,
      );
    throw e;
  }
  try {
    fchmodSync(fd, mode);
    writeSync(fd, data);
  } catch (e) {
    // A half-written key would block the next try: nothing stays behind.
    closeSync(fd);
    unlinkSync(path);
    throw e;
  }
  closeSync(fd);
}

/** Reads a private key file that only its owner can read: checked and read through one descriptor. */
function readPrivateKey(path: string): string {
  // O_NONBLOCK: a FIFO put where the key should be cannot hang the open.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UsageError(`--key ${path} is not a regular file`);
    if ((st.mode & 0o077) !== 0)
      throw new UsageError(
        `${path} can be read by others (mode ${(st.mode & 0o777).toString(8)}); a private key must be the owner's alone: chmod 600 ${path}`,
      );
    if (st.size > PRIVATE_KEY_MAX_BYTES)
      throw new UsageError(
        `${path} is ${st.size} bytes; a private key has at most ${PRIVATE_KEY_MAX_BYTES}`,
      );
    const buf = Buffer.alloc(PRIVATE_KEY_MAX_BYTES + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    if (n > PRIVATE_KEY_MAX_BYTES)
      throw new UsageError(`${path} grew past ${PRIVATE_KEY_MAX_BYTES} bytes while it was read`);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** Whether `inner` is `outer` or lies under it (both real paths). */
export function isInside(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Refuses a package that holds a private key: whatever is in it is published. */
export function refuseKeysInside(dir: string): void {
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && statSync(full).size <= 1_048_576) {
        if (readFileSync(full).includes("PRIVATE KEY-----"))
          throw new UsageError(
            `${full} holds a private key, and everything in ${dir} is published; move it out of the package`,
          );
      }
    }
  };
  walk(dir);
}

/**
 * The private key in `keyFile`, for signing the package in `dir`: it must
 * exist, lie outside the package (which is published) and be its owner's alone.
 */
export function signingKey(dir: string, keyFile: string): string {
  if (!existsSync(keyFile)) throw new UsageError(`--key ${keyFile}: no such file`);
  if (!existsSync(join(dir, "rukh-extension.json")))
    throw new UsageError(`${dir} is not a package directory: it has no rukh-extension.json`);
  if (isInside(realpathSync(dir), realpathSync(keyFile)))
    throw new UsageError(
      `${keyFile} is inside the package it would sign, and would be published with it; move the key out of ${dir}`,
    );
  return readPrivateKey(keyFile);
}

/** The directory of the bundled child runtime this CLI runs (its module, types and package.json). */
function runtimeDir(): string {
  return dirname(createRequire(import.meta.url).resolve("@rukh/ipc/runtime"));
}

/** The version of the bundled child runtime. */
export function runtimeVersion(): string {
  return JSON.parse(readFileSync(join(runtimeDir(), "package.json"), "utf8")).version;
}

/**
 * Where a package with a package.json keeps the runtime as an npm tarball,
 * which its `file:` dependency names: npm extracts it into
 * node_modules/@rukh/ipc on `npm install` and `npm ci`, byte for byte, and
 * a `bundleDependencies` entry publishes it from there.
 */
export function runtimeArchive(): string {
  return `vendor/rukh-ipc-${runtimeVersion()}.tgz`;
}

/** Places the bundled child runtime (one module) at `node_modules/@rukh/ipc` of `dir`. */
export function vendorRuntime(dir: string): void {
  const vendored = join(dir, "node_modules", "@rukh", "ipc");
  mkdirSync(vendored, { recursive: true });
  // The bundled runtime's directory is the unit: its module, types and package.json.
  cpSync(runtimeDir(), vendored, { recursive: true });
}

/** Writes the runtime's npm tarball (its files under `package/`) at {@link runtimeArchive} in `dir`. */
export async function vendorRuntimeArchive(dir: string): Promise<string> {
  const { packPackage } = await import("@rukh/profile");
  const stage = mkdtempSync(join(tmpdir(), "rukh-runtime-"));
  try {
    cpSync(runtimeDir(), join(stage, "package"), { recursive: true });
    const file = runtimeArchive();
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), await packPackage(stage), { flag: "wx" });
    return file;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** How a package carries the child runtime its Node programs import. */
export interface RuntimeCarriage {
  /** `bundled`: package.json declares and bundles it; `vendored`: copied under node_modules/ of a package without package.json. */
  readonly carried: "bundled" | "vendored" | "none";
  /** The runtime's version, when the package carries one. */
  readonly version?: string;
  /** Whether its module is byte for byte this CLI's, which a held process preloads. */
  readonly sameAsCli?: boolean;
  /** The line `ext validate` prints. */
  readonly line: string;
}

/** Which way the package in `dir` carries the child runtime, in words for `ext validate`. */
export function runtimeCarriage(dir: string): RuntimeCarriage {
  const at = join(dir, "node_modules", "@rukh", "ipc");
  const present = existsSync(join(at, "package.json")) && existsSync(join(at, "index.js"));
  const manifestFile = join(dir, "package.json");
  let declared = false;
  let bundled = false;
  const hasManifest = existsSync(manifestFile);
  if (hasManifest) {
    try {
      const m = JSON.parse(readFileSync(manifestFile, "utf8"));
      declared = typeof m.dependencies?.["@rukh/ipc"] === "string";
      const list = m.bundleDependencies ?? m.bundledDependencies;
      bundled = declared && (list === true || (Array.isArray(list) && list.includes("@rukh/ipc")));
    } catch {
      // The package check reports an unreadable package.json.
    }
  }
  if ((hasManifest && !bundled) || !present) {
    const why = hasManifest
      ? bundled
        ? "package.json bundles @rukh/ipc, but node_modules/@rukh/ipc is missing: run npm install"
        : `npm leaves node_modules/ out of what it publishes unless package.json lists @rukh/ipc in dependencies ("file:${runtimeArchive()}") and in bundleDependencies`
      : "vendor it under node_modules/@rukh/ipc, or give the package a package.json that bundles it (as ext init --lang ts writes)";
    return { carried: "none", line: `runtime: none — ${why}` };
  }
  const version = JSON.parse(readFileSync(join(at, "package.json"), "utf8")).version;
  const sameAsCli = readFileSync(join(at, "index.js")).equals(
    readFileSync(join(runtimeDir(), "index.js")),
  );
  const how = bundled
    ? "bundled by npm (package.json dependencies and bundleDependencies)"
    : "vendored under node_modules/@rukh/ipc";
  const same = sameAsCli
    ? "the same bytes as this CLI's, which held processes preload"
    : "other bytes than this CLI's runtime, so its calls start without the preloaded runtime";
  return {
    carried: bundled ? "bundled" : "vendored",
    version,
    sameAsCli,
    line: `runtime: @rukh/ipc ${version}, ${how}; ${same}`,
  };
}

/** Copies the single-file Python runtime into the package as `bin/rukh_ipc.py`, beside its programs. */
export function vendorPythonRuntime(dir: string): void {
  const file = createRequire(import.meta.url).resolve("@rukh/ipc/python/rukh_ipc.py");
  mkdirSync(join(dir, "bin"), { recursive: true });
  cpSync(file, join(dir, "bin", "rukh_ipc.py"));
}

/** A package report in words: one line per problem, then the verdict and the signature. */
export function reportLines(dir: string, report: PackageReport): string[] {
  const d = report.descriptor;
  const sig = report.signature;
  const signed =
    sig.state === "unsigned"
      ? "unsigned (sign it with `ext sign` before shipping)"
      : sig.state === "stale"
        ? `signed by ${sig.publisher} for other files`
        : `signed by ${sig.publisher}${sig.verified === true ? ", verified with the trusted key" : sig.verified === false ? "" : " (this profile does not trust that publisher: not verified)"}`;
  return [
    ...report.problems.map(
      (p) =>
        // A pointer or a message may quote the package's text: the lines it breaks stay indented.
        `${p.file}${p.at === undefined ? "" : `:${p.at}`}${p.path === "" ? "" : ` ${terminalBlock(p.path)}`}: ${terminalBlock(p.message)} (${p.code})`,
    ),
    report.ok && d !== undefined
      ? `${dir}: valid — ${d.id}@${d.version}, ${plural(d.commands.length, "command")}; ${signed}`
      : `${dir}: ${plural(report.problems.length, "problem")}; ${signed}`,
  ];
}

/**
 * A package that fails its checks, as a refusal: the report's summary, each
 * problem an issue at its file (and line), and `see` the command that shows
 * the way on.
 */
export function reportRefusal(
  dir: string,
  report: PackageReport,
  see?: readonly string[],
): Refusal {
  const lines = reportLines(dir, report);
  const issues = report.problems.map((p) => ({
    path: `${p.file}${p.at === undefined ? "" : `:${p.at}`}${p.path === "" ? "" : ` ${p.path}`}`,
    code: p.code,
    message: `${p.message} (${p.code})`,
  }));
  return new Refusal(lines.at(-1)!, { issues, ...(see !== undefined && { see }) });
}

/** The `PATH` a command process gets (the core's child environment). */
const COMMAND_PATH = ["/usr/bin", "/bin"];

/**
 * Native programs whose `#!` line names an interpreter this machine does not
 * have where a command process looks (`/usr/bin:/bin`), each as a note: it
 * would pass every install check and fail at its first call.
 */
export function missingInterpreters(dir: string, programs: readonly string[]): string[] {
  const notes: string[] = [];
  for (const program of new Set(programs)) {
    let head: string;
    try {
      const fd = openSync(join(dir, program), "r");
      try {
        const buf = Buffer.alloc(256);
        head = buf.subarray(0, readSync(fd, buf, 0, 256, 0)).toString("latin1");
      } finally {
        closeSync(fd);
      }
    } catch {
      continue;
    }
    if (!head.startsWith("#!")) continue;
    const [interpreter, arg] = head.slice(2).split("\n")[0]!.trim().split(/\s+/);
    if (interpreter === undefined) continue;
    const found =
      interpreter === "/usr/bin/env" && arg !== undefined
        ? COMMAND_PATH.some((d) => existsSync(join(d, arg)))
        : existsSync(interpreter);
    if (!found)
      notes.push(
        `note: ${program} starts with #!${interpreter}${arg === undefined ? "" : ` ${arg}`}, which this machine does not have${interpreter === "/usr/bin/env" ? " on /usr/bin:/bin" : ""}: its first call would fail`,
      );
  }
  return notes;
}
