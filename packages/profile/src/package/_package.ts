import {
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from "node:crypto";
import type { Stats } from "node:fs";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { type ExtensionDescriptor, PUBLISHER_ID_PATTERN, parseDescriptor } from "@rukh/descriptor";
import { canonicalJson, fingerprint, parseJson, sha256Hex } from "@rukh/json";
import {
  DEFAULT_OWNER_LIMITS,
  DESCRIPTOR_PATH,
  ioError,
  type OwnerConfig,
  type OwnerLimits,
  PACKAGE_MAX_COMPRESSED_BYTES,
  PACKAGE_MAX_PATH_BYTES,
  type PackageFiles,
  type PackageManifest,
  type PackageSignature,
  ProfileError,
  SIGNATURE_MAX_BYTES,
  SIGNATURE_PATH,
  type VerifiedPackage,
} from "../model/index.js";
import { ownershipProblem } from "../routes/index.js";
import { fsyncDir, temporaryName, writeDurable } from "../state-dir/index.js";
import { checkImports } from "./_imports.js";
import { npmPublishedFiles, npmTarballContents } from "./_npm-files.js";
import { checkStoredPackage } from "./_storecheck.js";
import { checkPackagePath, type PackageReadLimits, readTgz, writeTgz } from "./_tar.js";

export function readLimits(limits: OwnerLimits): PackageReadLimits {
  return {
    maxCompressedBytes: Math.min(PACKAGE_MAX_COMPRESSED_BYTES, limits.maxPackageBytes),
    maxBytes: limits.maxPackageBytes,
    maxFileBytes: limits.maxFileBytes,
    maxFiles: limits.maxPackageFiles,
    maxPathBytes: PACKAGE_MAX_PATH_BYTES,
  };
}

/**
 * Reads a package directory; every symbolic link and non-regular file is
 * rejected. With a package.json, the package is what npm would publish of
 * the directory (see `_npm-files.ts`), so that it signs and installs the same
 * from the directory, from `ext pack` and from a registry.
 */
/**
 * Refuses an entry of a linked package that another user could change: one
 * they own, or one group or others can write.
 */
function checkOwned(path: string, st: Stats, owner: number): void {
  const problem = ownershipProblem(st, owner);
  if (problem !== undefined)
    throw new ProfileError(
      "invalid_link",
      `package entry "${path}" ${problem}: another user could change what runs; only your own files are linked`,
    );
}

export async function readPackageDir(
  dir: string,
  limits: PackageReadLimits,
  owner?: number,
): Promise<PackageFiles> {
  const published = npmPublishedFiles(dir);
  const files: PackageFiles = new Map();
  let total = 0;
  let entries = 0;
  const walk = async (rel: string): Promise<void> => {
    const names = (await readdir(rel === "" ? dir : join(dir, rel))).sort();
    for (const name of names) {
      const path = checkPackagePath(rel === "" ? name : `${rel}/${name}`, limits);
      const full = join(dir, path);
      const st = await lstat(full);
      if (published !== undefined) {
        const wanted = st.isDirectory() ? published.enter(path) : published.keep(path);
        if (!wanted) continue;
      }
      if (++entries > limits.maxFiles)
        throw new ProfileError(
          "package_too_large",
          `package has more than ${limits.maxFiles} entries`,
        );
      if (st.isSymbolicLink())
        throw new ProfileError(
          "link_not_allowed",
          `package entry "${path}" is a symbolic link; only regular files and directories are accepted`,
        );
      if (owner !== undefined) checkOwned(path, st, owner);
      if (st.isDirectory()) await walk(path);
      else if (st.isFile() && st.nlink > 1)
        // Another name for the same inode could be changed from outside the package.
        throw new ProfileError(
          "link_not_allowed",
          `package entry "${path}" is a hard link (${st.nlink} names for one file); only files of their own are accepted`,
        );
      else if (st.isFile()) {
        if (st.size > limits.maxFileBytes)
          throw new ProfileError(
            "file_too_large",
            `package file "${path}" is ${st.size} bytes; at most ${limits.maxFileBytes} are accepted`,
          );
        total += st.size;
        if (total > limits.maxBytes)
          throw new ProfileError(
            "package_too_large",
            `package content exceeds ${limits.maxBytes} bytes`,
          );
        const data = await readFile(full);
        // The file may have grown between lstat and read.
        if (data.length !== st.size)
          throw new ProfileError(
            "package_too_large",
            `package file "${path}" changed while being read`,
          );
        files.set(path, data);
      } else
        throw new ProfileError(
          "unsupported_entry",
          `package entry "${path}" is not a regular file or directory`,
        );
    }
  };
  await walk("");
  return files;
}

/** Reads a package from a directory or a `.tgz` file. */
export async function readPackageSource(
  source: string,
  limits: PackageReadLimits,
): Promise<PackageFiles> {
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await lstat(source);
  } catch (cause) {
    throw ioError(`cannot read package "${source}"`, cause);
  }
  if (st.isDirectory()) return readPackageDir(source, limits);
  if (!st.isFile())
    throw new ProfileError(
      "link_not_allowed",
      `package source "${source}" is not a directory or a regular file`,
    );
  if (st.size > limits.maxCompressedBytes)
    throw new ProfileError(
      "package_too_large",
      `compressed package is ${st.size} bytes; at most ${limits.maxCompressedBytes} are accepted`,
    );
  return npmTarballContents(readTgz(await readFile(source), limits));
}

/**
 * Reads a package from an npm tarball's bytes: every entry under the one
 * `package/` folder npm packs into, which is taken off, so the files are the
 * signed folder's (`malformed_archive` for an entry outside it). The same
 * limits as a `.tgz` file apply.
 */
export function readNpmArchive(bytes: Uint8Array, limits: PackageReadLimits): PackageFiles {
  if (bytes.length > limits.maxCompressedBytes)
    throw new ProfileError(
      "package_too_large",
      `compressed package is ${bytes.length} bytes; at most ${limits.maxCompressedBytes} are accepted`,
    );
  const packed = readTgz(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), {
    ...limits,
    maxPathBytes: limits.maxPathBytes + NPM_FOLDER.length,
  });
  const files: PackageFiles = new Map();
  for (const [path, data] of packed) {
    if (!path.startsWith(NPM_FOLDER))
      throw new ProfileError(
        "malformed_archive",
        `npm tarball entry "${path}" is outside the "${NPM_FOLDER}" folder npm packs into`,
      );
    files.set(checkPackagePath(path.slice(NPM_FOLDER.length), limits), data);
  }
  return files;
}

const NPM_FOLDER = "package/";

/** The manifest of in-memory package files. */
export function manifestOf(files: PackageFiles): PackageManifest {
  const paths = [...files.keys()].filter((p) => p !== SIGNATURE_PATH).sort();
  return {
    format: "rukh.manifest/1",
    files: paths.map((path) => {
      const data = files.get(path)!;
      return { path, size: data.length, sha256: sha256Hex(data) };
    }),
  };
}

function digestOf(files: PackageFiles): string {
  return fingerprint(manifestOf(files) as never);
}

/**
 * The manifest of a package directory and its digest (SHA-256 hex of the
 * manifest's RFC 8785 form), as signed by {@link signPackage}.
 *
 * @example
 * const { digest } = await computeManifest("./my-extension");
 */
export async function computeManifest(
  dir: string,
): Promise<{ manifest: PackageManifest; digest: string }> {
  const files = await readPackageDir(dir, readLimits(DEFAULT_OWNER_LIMITS));
  const manifest = manifestOf(files);
  return { manifest, digest: fingerprint(manifest as never) };
}

const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");
const keyCache = new Map<string, KeyObject>();

/** The Ed25519 public key of a trusted publisher's base64 raw key. */
export function publicKeyOf(base64: string): KeyObject {
  let key = keyCache.get(base64);
  if (key === undefined) {
    const raw = Buffer.from(base64, "base64");
    if (raw.length !== 32)
      throw new ProfileError("invalid_key", "expected base64 of a 32-byte Ed25519 public key");
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: "der", type: "spki" });
    keyCache.set(base64, key);
  }
  return key;
}

/**
 * The base64 raw 32-byte public key (the form the owner configuration lists)
 * of an Ed25519 private or public key.
 *
 * @example
 * publicKeyBase64(readFileSync("publisher.key", "utf8")); // "…=" (44 characters)
 */
export function publicKeyBase64(key: KeyObject | string): string {
  const k =
    typeof key === "string"
      ? createPublicKey(key)
      : key.type === "private"
        ? createPublicKey(key)
        : key;
  if (k.asymmetricKeyType !== "ed25519")
    throw new ProfileError("invalid_key", "expected an Ed25519 key");
  return k.export({ format: "der", type: "spki" }).subarray(SPKI_ED25519.length).toString("base64");
}

/**
 * Signs a package directory in place: computes its manifest digest and writes
 * `rukh-signature.json` with an Ed25519 signature over the UTF-8 bytes of the
 * digest's hex text. The publisher id is read from the descriptor unless
 * `options.publisher` names it.
 *
 * @example
 * await signPackage("./my-extension", readFileSync("publisher.key", "utf8"));
 */
export async function signPackage(
  dir: string,
  privateKey: KeyObject | string,
  options: { readonly publisher?: string } = {},
): Promise<PackageSignature> {
  const key = typeof privateKey === "string" ? createPrivateKey(privateKey) : privateKey;
  if (key.type !== "private" || key.asymmetricKeyType !== "ed25519")
    throw new ProfileError("invalid_key", "expected an Ed25519 private key");
  const files = await readPackageDir(dir, readLimits(DEFAULT_OWNER_LIMITS));
  let publisher = options.publisher;
  if (publisher === undefined) {
    const descriptorBytes = files.get(DESCRIPTOR_PATH);
    if (descriptorBytes === undefined)
      throw new ProfileError("missing_descriptor", `package has no ${DESCRIPTOR_PATH}`);
    const d = parseDescriptor(descriptorBytes);
    if (!d.ok)
      throw new ProfileError("invalid_descriptor", `${DESCRIPTOR_PATH} is not a valid descriptor`, {
        issues: d.issues,
      });
    publisher = d.value.publisher;
  }
  const descriptorBytes = files.get(DESCRIPTOR_PATH);
  const parsed = descriptorBytes === undefined ? undefined : parseDescriptor(descriptorBytes);
  if (parsed?.ok) {
    checkPrograms(parsed.value, files);
    await checkImports(parsed.value, files);
  }
  const manifestDigest = digestOf(files);
  const signature: PackageSignature = {
    format: "rukh.signature/1",
    publisher,
    manifestDigest,
    signature: sign(null, Buffer.from(manifestDigest, "utf8"), key).toString("base64"),
  };
  await writeFile(join(dir, SIGNATURE_PATH), `${canonicalJson(signature as never)}\n`);
  return signature;
}

/**
 * Packs a package directory (normally after {@link signPackage}) into a
 * deterministic `.tgz` the installer accepts.
 *
 * @example
 * writeFileSync("my-extension.tgz", await packPackage("./my-extension"));
 */
export async function packPackage(dir: string): Promise<Buffer> {
  return writeTgz(await readPackageDir(dir, readLimits(DEFAULT_OWNER_LIMITS)));
}

const HEX64 = /^[0-9a-f]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Reads a `rukh-signature.json` strictly (`malformed_signature` otherwise). */
export function readSignature(bytes: Buffer): PackageSignature {
  const bad = (why: string) => new ProfileError("malformed_signature", `${SIGNATURE_PATH}: ${why}`);
  const parsed = parseJson(bytes, {
    limits: { maxBytes: SIGNATURE_MAX_BYTES, maxDepth: 2, maxNodes: 16 },
  });
  if (!parsed.ok)
    throw new ProfileError("malformed_signature", `${SIGNATURE_PATH} is not strict JSON`, {
      cause: parsed.error,
    });
  const v = parsed.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw bad("expected an object");
  const keys = Object.keys(v).sort().join(",");
  if (keys !== "format,manifestDigest,publisher,signature")
    throw bad("expected exactly format, publisher, manifestDigest and signature");
  if (v.format !== "rukh.signature/1") throw bad('expected format "rukh.signature/1"');
  if (typeof v.publisher !== "string" || !PUBLISHER_ID_PATTERN.test(v.publisher))
    throw bad("publisher is not a publisher id");
  if (typeof v.manifestDigest !== "string" || !HEX64.test(v.manifestDigest))
    throw bad("manifestDigest is not 64 lowercase hex digits");
  if (typeof v.signature !== "string" || !BASE64.test(v.signature) || v.signature.length !== 88)
    throw bad("signature is not base64 of 64 bytes");
  return v as unknown as PackageSignature;
}

/**
 * Verifies in-memory package files against the owner configuration: trusted
 * publisher, digest, Ed25519 signature, descriptor validity and publisher
 * match. Nothing in the package is executed.
 */
export function verifyPackage(files: PackageFiles, config: OwnerConfig): VerifiedPackage {
  const descriptorBytes = files.get(DESCRIPTOR_PATH);
  if (descriptorBytes === undefined)
    throw new ProfileError("missing_descriptor", `package has no ${DESCRIPTOR_PATH} at its root`);
  const sigBytes = files.get(SIGNATURE_PATH);
  if (sigBytes === undefined)
    throw new ProfileError(
      "unsigned",
      `package has no ${SIGNATURE_PATH}; expected a publisher signature`,
    );
  const sig = readSignature(sigBytes);
  const trusted = config.trustedPublishers.find((p) => p.id === sig.publisher);
  if (trusted === undefined)
    throw new ProfileError(
      "untrusted_publisher",
      `publisher "${sig.publisher}" is not in /trustedPublishers`,
    );
  const digest = digestOf(files);
  if (digest !== sig.manifestDigest)
    throw new ProfileError(
      "digest_mismatch",
      `package content does not match the signed manifest (signed ${sig.manifestDigest}, found ${digest})`,
    );
  if (
    !verify(
      null,
      Buffer.from(digest, "utf8"),
      publicKeyOf(trusted.publicKey),
      Buffer.from(sig.signature, "base64"),
    )
  )
    throw new ProfileError(
      "bad_signature",
      `the signature does not verify with the key of publisher "${sig.publisher}"`,
    );
  const descriptor = runnableDescriptor(descriptorBytes, files);
  if (descriptor.publisher !== sig.publisher)
    throw new ProfileError(
      "publisher_mismatch",
      `descriptor publisher "${descriptor.publisher}" differs from signing publisher "${sig.publisher}"`,
    );
  return { digest, descriptor, files };
}

/**
 * Checks an unsigned package linked for development (`ext link`): every
 * check of {@link verifyPackage} but the signature's. Nothing in it is
 * trusted by this; what makes it safe is that only the local user links it,
 * and that no MCP endpoint sees it unless the owner names it there.
 */
export function devPackage(files: PackageFiles): VerifiedPackage {
  const descriptorBytes = files.get(DESCRIPTOR_PATH);
  if (descriptorBytes === undefined)
    throw new ProfileError("missing_descriptor", `package has no ${DESCRIPTOR_PATH} at its root`);
  return { digest: digestOf(files), descriptor: runnableDescriptor(descriptorBytes, files), files };
}

/** A package's valid descriptor, every program of which is a file of the package. */
function runnableDescriptor(bytes: Uint8Array, files: PackageFiles): ExtensionDescriptor {
  const d = parseDescriptor(bytes);
  if (!d.ok)
    throw new ProfileError(
      "invalid_descriptor",
      `${DESCRIPTOR_PATH} is not a valid descriptor: ${[d.issues[0]?.path, d.issues[0]?.message].filter((x) => x !== "" && x !== undefined).join(" ")}`,
      { issues: d.issues },
    );
  checkPrograms(d.value, files);
  return d.value;
}

/**
 * Every command's program is a file of the package (`missing_program`): a
 * package that cannot run is refused when it is signed or installed, not at
 * its first call.
 */
export function checkPrograms(descriptor: ExtensionDescriptor, files: PackageFiles): void {
  for (const c of descriptor.commands) {
    const program = c.execute.program;
    if (!files.has(program))
      throw new ProfileError(
        "missing_program",
        `${c.identity} runs "${program}", which is not a file of the package${[...files.keys()].some((f) => f.startsWith(`${program}/`)) ? " (it is a directory)" : ""}`,
      );
  }
}

/**
 * Writes a verified package into `store/<digest>` through `tmp/`, its files
 * read-only (directories stay writable, so the state directory can be
 * deleted; the check records them, so an added file is noticed). An entry already there that no longer matches
 * its digest (edited by hand, say) is moved aside to `tmp/` and written
 * again: installing the same package repairs it.
 */
export async function storePackage(root: string, pkg: VerifiedPackage): Promise<void> {
  const target = join(root, "store", pkg.digest);
  if (await exists(target)) {
    try {
      // Every byte, trusting no record: installing again is how a rewritten entry is repaired.
      await checkStoredPackage(root, pkg.digest, { full: true });
      return;
    } catch (e) {
      if (!(e instanceof ProfileError) || e.code !== "store_corrupt") throw e;
      const aside = join(
        root,
        "tmp",
        `${temporaryName(`corrupt-${pkg.digest.slice(0, 16)}`)}${randomBytes(6).toString("hex")}`,
      );
      await rename(target, aside);
      await rm(aside, { recursive: true, force: true });
    }
  }
  const staging = join(
    root,
    "tmp",
    `${temporaryName(`store-${pkg.digest.slice(0, 16)}`)}${randomBytes(6).toString("hex")}`,
  );
  try {
    await mkdir(staging, { recursive: true });
    // Packages carry no file modes (the manifest signs content only); the one
    // file that must be executable, a native command's program, is named by
    // the signed descriptor, so exactly those files get the execute bit.
    const programs = new Set(
      pkg.descriptor.commands
        .filter((c) => c.execute.runtime === "native")
        .map((c) => c.execute.program),
    );
    const dirs = new Set<string>();
    for (const path of [...pkg.files.keys()].sort()) {
      const slash = path.lastIndexOf("/");
      if (slash > 0 && !dirs.has(path.slice(0, slash))) {
        await mkdir(join(staging, path.slice(0, slash)), { recursive: true });
        dirs.add(path.slice(0, slash));
      }
      await writeDurable(join(staging, path), pkg.files.get(path)!);
      await chmod(join(staging, path), programs.has(path) ? 0o555 : 0o444);
    }
    await fsyncDir(staging);
    await mkdir(join(root, "store"), { recursive: true });
    try {
      await rename(staging, target);
    } catch (cause) {
      // Another publisher stored the same content first: identical by digest.
      if (!(await exists(target))) throw cause;
      await rm(staging, { recursive: true, force: true });
    }
    await fsyncDir(join(root, "store"));
  } catch (cause) {
    await rm(staging, { recursive: true, force: true });
    if (cause instanceof ProfileError) throw cause;
    throw ioError(`cannot store package ${pkg.digest}`, cause);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
