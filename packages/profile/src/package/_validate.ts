// An author's check of a package directory: every check an install makes of
// the package itself (limits, descriptor, programs, imports, signature),
// reported together instead of failing at the first, with no state touched.

import { verify } from "node:crypto";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import { parseDescriptor } from "@rukh/descriptor";
import { fingerprint, lineColumn, pointerOffset, type ValidationIssue } from "@rukh/json";
import { effectiveLimits } from "../config/index.js";
import {
  DEFAULT_OWNER_LIMITS,
  DESCRIPTOR_PATH,
  type OwnerConfig,
  type PackageFiles,
  ProfileError,
  SIGNATURE_PATH,
} from "../model/index.js";
import { checkImports } from "./_imports.js";
import {
  checkPrograms,
  manifestOf,
  publicKeyOf,
  readLimits,
  readPackageDir,
  readSignature,
} from "./_package.js";

/** One problem of a package: the file it is in, where in it, a stable code and what was expected. */
export interface PackageProblem {
  readonly file: string;
  /** A JSON pointer into the file, or `""` for the whole file. */
  readonly path: string;
  readonly code: string;
  readonly message: string;
  /** Where `path` is in the file, `line:column`, when it is a JSON pointer the file holds. */
  readonly at?: string;
}

/** What {@link validatePackageDir} found. */
export interface PackageReport {
  readonly ok: boolean;
  readonly problems: readonly PackageProblem[];
  /** The descriptor, when it is valid. */
  readonly descriptor?: ExtensionDescriptor;
  /** The manifest digest of the files as they are now. */
  readonly digest?: string;
  /**
   * The signature: absent (`unsigned`), signed for other files (`stale`),
   * or matching these files — then `verified` says whether a key of
   * `config` confirmed it (`undefined`: no configuration, or its publisher is not trusted there).
   */
  readonly signature:
    | { readonly state: "unsigned" }
    | { readonly state: "stale"; readonly publisher: string }
    | { readonly state: "current"; readonly publisher: string; readonly verified?: boolean };
}

/**
 * Runs every check an install makes of the package in `dir`, collecting
 * every problem. With `config`, the signature is also verified against the
 * key it trusts for the signing publisher. Nothing is written or run.
 *
 * @example
 * const report = await validatePackageDir("hello-ext");
 * for (const p of report.problems) console.error(`${p.file}${p.path}: ${p.message}`);
 */
export async function validatePackageDir(
  dir: string,
  config?: OwnerConfig,
): Promise<PackageReport> {
  const problems: PackageProblem[] = [];
  const add = (file: string, e: unknown) => {
    if (!(e instanceof ProfileError)) throw e;
    problems.push({ file, path: "", code: e.code, message: e.message });
  };
  let files: PackageFiles;
  try {
    const limits = config === undefined ? DEFAULT_OWNER_LIMITS : effectiveLimits(config);
    files = await readPackageDir(dir, readLimits(limits));
  } catch (e) {
    add("", e);
    return { ok: false, problems, signature: { state: "unsigned" } };
  }
  const digest = fingerprint(manifestOf(files) as never);
  let descriptor: ExtensionDescriptor | undefined;
  const bytes = files.get(DESCRIPTOR_PATH);
  if (bytes === undefined)
    problems.push({
      file: DESCRIPTOR_PATH,
      path: "",
      code: "missing_descriptor",
      message: `the package has no ${DESCRIPTOR_PATH} at its root`,
    });
  else {
    const d = parseDescriptor(bytes);
    if (d.ok) descriptor = d.value;
    else {
      const text = Buffer.from(bytes).toString("utf8");
      for (const i of d.issues as readonly ValidationIssue<string>[]) {
        // Where an editor shows it (a syntax error names its own place).
        const offset = i.path === "" ? undefined : nearestOffset(text, i.path);
        problems.push({
          file: DESCRIPTOR_PATH,
          path: i.path,
          code: i.code,
          message: i.message,
          ...(offset !== undefined && { at: lineColumn(text, offset) }),
        });
      }
    }
  }
  if (descriptor !== undefined) {
    try {
      checkPrograms(descriptor, files);
    } catch (e) {
      add(DESCRIPTOR_PATH, e);
    }
    try {
      await checkImports(descriptor, files);
    } catch (e) {
      add(DESCRIPTOR_PATH, e);
    }
  }
  const signature = signatureOf({ files, digest, descriptor }, config, problems);
  return {
    ok: problems.length === 0,
    problems,
    ...(descriptor !== undefined && { descriptor }),
    digest,
    signature,
  };
}

/** A package as read for validation: its files, their digest and its descriptor if it is valid. */
interface ReadPackage {
  readonly files: PackageFiles;
  readonly digest: string;
  readonly descriptor: ExtensionDescriptor | undefined;
}

function signatureOf(
  { files, digest, descriptor }: ReadPackage,
  config: OwnerConfig | undefined,
  problems: PackageProblem[],
): PackageReport["signature"] {
  const bytes = files.get(SIGNATURE_PATH);
  if (bytes === undefined) return { state: "unsigned" };
  let sig: ReturnType<typeof readSignature>;
  try {
    sig = readSignature(bytes);
  } catch (e) {
    problems.push({
      file: SIGNATURE_PATH,
      path: "",
      code: (e as ProfileError).code,
      message: (e as Error).message,
    });
    return { state: "unsigned" };
  }
  if (descriptor !== undefined && descriptor.publisher !== sig.publisher)
    problems.push({
      file: SIGNATURE_PATH,
      path: "/publisher",
      code: "publisher_mismatch",
      message: `signed by "${sig.publisher}", but the descriptor names publisher "${descriptor.publisher}"`,
    });
  if (sig.manifestDigest !== digest) {
    problems.push({
      file: SIGNATURE_PATH,
      path: "/manifestDigest",
      code: "digest_mismatch",
      message: "the files changed since the package was signed; sign it again (`ext sign`)",
    });
    return { state: "stale", publisher: sig.publisher };
  }
  const trusted = config?.trustedPublishers.find((p) => p.id === sig.publisher);
  if (trusted === undefined) return { state: "current", publisher: sig.publisher };
  const verified = verify(
    null,
    Buffer.from(digest, "utf8"),
    publicKeyOf(trusted.publicKey),
    Buffer.from(sig.signature, "base64"),
  );
  if (!verified)
    problems.push({
      file: SIGNATURE_PATH,
      path: "/signature",
      code: "bad_signature",
      message: `the signature does not verify with the key this profile trusts for "${sig.publisher}"`,
    });
  return { state: "current", publisher: sig.publisher, verified };
}

/** Where the member `pointer` names is, or its nearest ancestor that is there (a missing member's object). */
function nearestOffset(text: string, pointer: string): number | undefined {
  for (let p = pointer; ; p = p.slice(0, p.lastIndexOf("/"))) {
    const offset = pointerOffset(text, p);
    if (offset !== undefined || p === "") return offset;
  }
}
