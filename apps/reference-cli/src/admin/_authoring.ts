// What the author's commands share: new files that never replace old ones,
// a private key read only when it is safe to use, the vendored runtime, and
// the words of a package report.

import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative } from "node:path";
import type { PackageReport } from "@rukh/profile";
import { plural, readBounded, UsageError } from "./_kit.js";

/** A PEM Ed25519 private key is about 120 bytes; anything much larger is not one. */
const PRIVATE_KEY_MAX_BYTES = 4_096;

/** Writes a new file (never over an existing one) with `mode`, whatever the umask. */
export function writeNew(path: string, data: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw new UsageError(`${path} already exists; keygen never replaces a key`);
    throw e;
  }
  try {
    fchmodSync(fd, mode);
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/** Reads a private key file that only its owner can read. */
function readPrivateKey(path: string): string {
  const fd = openSync(path, "r");
  let mode: number;
  try {
    mode = fstatSync(fd).mode;
  } finally {
    closeSync(fd);
  }
  if ((mode & 0o077) !== 0)
    throw new UsageError(
      `${path} can be read by others (mode ${(mode & 0o777).toString(8)}); a private key must be the owner's alone: chmod 600 ${path}`,
    );
  return readBounded(path, PRIVATE_KEY_MAX_BYTES).toString("utf8");
}

/**
 * The private key in `keyFile`, for signing the package in `dir`: it must
 * exist, lie outside the package (which is published) and be its owner's alone.
 */
export function signingKey(dir: string, keyFile: string): string {
  if (!existsSync(keyFile)) throw new UsageError(`--key ${keyFile}: no such file`);
  if (!existsSync(join(dir, "rukh-extension.json")))
    throw new UsageError(`${dir} is not a package directory: it has no rukh-extension.json`);
  const rel = relative(realpathSync(dir), realpathSync(keyFile));
  if (!rel.startsWith("..") && !isAbsolute(rel))
    throw new UsageError(
      `${keyFile} is inside the package it would sign, and would be published with it; move the key out of ${dir}`,
    );
  return readPrivateKey(keyFile);
}

/** Places the bundled child runtime (one module) at `node_modules/@rukh/ipc` of `dir`. */
export function vendorRuntime(dir: string): void {
  const runtime = dirname(createRequire(import.meta.url).resolve("@rukh/ipc/runtime"));
  const vendored = join(dir, "node_modules", "@rukh", "ipc");
  mkdirSync(vendored, { recursive: true });
  for (const f of ["package.json", "index.js"]) copyFileSync(join(runtime, f), join(vendored, f));
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
      (p) => `${p.file}${p.path === "" ? "" : ` ${p.path}`}: ${p.message} (${p.code})`,
    ),
    report.ok && d !== undefined
      ? `${dir}: valid — ${d.id}@${d.version}, ${plural(d.commands.length, "command")}; ${signed}`
      : `${dir}: ${plural(report.problems.length, "problem")}; ${signed}`,
  ];
}
