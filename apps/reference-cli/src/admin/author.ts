// An extension author's tools: `keygen` makes a publisher's Ed25519 key pair,
// `ext sign` signs a package directory with it (the private key is written
// for its owner only and never printed), and `ext validate` runs every check
// an install makes of a package without installing it.

import { generateKeyPairSync } from "node:crypto";
import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { CliBuiltin } from "@rukh/cli";
import { arg, flag, oneOf, text } from "./_inputs.js";
import { type AdminBody, OK, plural, print, REFUSED, readBounded, UsageError } from "./_kit.js";
import { SKELETON_LANGUAGES, skeletonFiles } from "./_skeleton.js";

/** A PEM Ed25519 private key is about 120 bytes; anything much larger is not one. */
const PRIVATE_KEY_MAX_BYTES = 4_096;
const PUBLISHER = /^[a-z][a-z0-9-]{0,63}$/;
/** `<publisher>.<name>`: the publisher's namespace first, as trust expects. */
const EXTENSION_ID = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;

/** Writes a new file (never over an existing one) with `mode`, whatever the umask. */
function writeNew(path: string, data: string, mode: number): void {
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

/** `keygen` and `ext sign`. */
export function authorBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["keygen"],
      summary:
        "Make a publisher's Ed25519 key pair: <publisher>.key (yours alone, never printed) and <publisher>.pub",
      inputs: [
        arg("publisher", "The publisher id the key signs for (as in descriptors)", 0, {
          maxLength: 64,
        }),
        flag("out", "The directory to write both files to (default: the current one)", {
          maxLength: 4096,
        }),
      ],
      run: guarded((ctx, _home, { publicKeyBase64 }) => {
        const publisher = text(ctx.inputs, "publisher")!;
        if (!PUBLISHER.test(publisher))
          throw new UsageError(
            `<publisher> ${JSON.stringify(publisher)}: expected a lowercase publisher id such as acme`,
          );
        const dir = resolve(text(ctx.inputs, "out") ?? process.cwd());
        const keyFile = join(dir, `${publisher}.key`);
        const pubFile = join(dir, `${publisher}.pub`);
        const { privateKey, publicKey } = generateKeyPairSync("ed25519");
        const pub = publicKeyBase64(publicKey);
        writeNew(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }).toString(), 0o600);
        try {
          writeNew(pubFile, `${pub}\n`, 0o644);
        } catch (e) {
          // Both files or neither.
          unlinkSync(keyFile);
          throw e;
        }
        print(
          ctx,
          `wrote ${keyFile} (private: keep it to yourself) and ${pubFile}\nan owner trusts it with: ${brand} trust add ${pubFile} --publisher ${publisher}`,
          { publisher, privateKey: keyFile, publicKey: pubFile, publicKeyBase64: pub },
        );
        return OK;
      }),
    },
    {
      path: ["ext", "sign"],
      summary:
        "Sign a package directory with a publisher's private key (writes rukh-signature.json)",
      inputs: [
        arg("dir", "The package directory"),
        flag("key", "The publisher's private key file (from keygen)", {
          required: true,
          maxLength: 4096,
        }),
      ],
      run: guarded(async (ctx, _home, { publicKeyBase64, signPackage }) => {
        const dir = resolve(text(ctx.inputs, "dir")!);
        const keyFile = resolve(text(ctx.inputs, "key")!);
        if (!existsSync(keyFile)) throw new UsageError(`--key ${keyFile}: no such file`);
        if (!existsSync(join(dir, "rukh-extension.json")))
          throw new UsageError(`${dir} is not a package directory: it has no rukh-extension.json`);
        // The package is published: a key inside it would be shipped with it.
        const rel = relative(realpathSync(dir), realpathSync(keyFile));
        if (!rel.startsWith("..") && !isAbsolute(rel))
          throw new UsageError(
            `${keyFile} is inside the package it would sign, and would be published with it; move the key out of ${dir}`,
          );
        const pem = readPrivateKey(keyFile);
        const signature = await signPackage(dir, pem);
        print(
          ctx,
          `signed ${dir} as ${signature.publisher} (manifest ${signature.manifestDigest.slice(0, 19)}…, key ${publicKeyBase64(pem)})`,
          {
            dir,
            publisher: signature.publisher,
            manifestDigest: signature.manifestDigest,
            publicKeyBase64: publicKeyBase64(pem),
          },
        );
        return OK;
      }),
    },
    {
      path: ["ext", "validate"],
      summary:
        "Run every check an install makes of a package directory, and report every problem, without installing it",
      inputs: [arg("dir", "The package directory")],
      run: guarded(async (ctx, home, { validatePackageDir }) => {
        const dir = resolve(text(ctx.inputs, "dir")!);
        // The signature is verified too when this state directory trusts its publisher.
        const active = await home.activeRevisionId();
        const config = active === null ? undefined : (await home.readRevision(active)).config;
        const report = await validatePackageDir(dir, config);
        const d = report.descriptor;
        const sig = report.signature;
        const signed =
          sig.state === "unsigned"
            ? "unsigned (sign it with `ext sign` before shipping)"
            : sig.state === "stale"
              ? `signed by ${sig.publisher} for other files`
              : `signed by ${sig.publisher}${sig.verified === true ? ", verified with the trusted key" : sig.verified === false ? "" : " (this profile does not trust that publisher: not verified)"}`;
        const lines = [
          ...report.problems.map(
            (p) => `${p.file}${p.path === "" ? "" : ` ${p.path}`}: ${p.message} (${p.code})`,
          ),
          report.ok
            ? `${dir}: valid — ${d!.id}@${d!.version}, ${plural(d!.commands.length, "command")}; ${signed}`
            : `${dir}: ${plural(report.problems.length, "problem")}; ${signed}`,
        ];
        print(ctx, lines.join("\n"), {
          ok: report.ok,
          problems: report.problems,
          ...(d !== undefined && {
            extension: {
              id: d.id,
              version: d.version,
              publisher: d.publisher,
              commands: d.commands.length,
            },
          }),
          digest: report.digest,
          signature: report.signature,
        });
        return report.ok ? OK : REFUSED;
      }),
    },
    {
      path: ["ext", "init"],
      summary:
        "Write a new extension package: a descriptor, one typed command, a test and a README, with the runtime vendored",
      inputs: [
        arg("dir", "The directory to create (it must not exist or be empty)"),
        flag("id", "The extension id, <publisher>.<name> (for example jane.hello)", {
          required: true,
          maxLength: 64,
        }),
        oneOf("lang", "The language of the command (default: js)", SKELETON_LANGUAGES),
      ],
      run: guarded((ctx) => {
        const dir = resolve(text(ctx.inputs, "dir")!);
        const id = text(ctx.inputs, "id")!;
        if (!EXTENSION_ID.test(id))
          throw new UsageError(
            `--id ${JSON.stringify(id)}: expected <publisher>.<name> in lowercase, such as jane.hello`,
          );
        if (existsSync(dir) && readdirSync(dir).length > 0)
          throw new UsageError(
            `${dir} is not empty; ext init writes only into a new or empty directory`,
          );
        const files = skeletonFiles(id, brand);
        for (const [path, content] of Object.entries(files)) {
          mkdirSync(dirname(join(dir, path)), { recursive: true });
          writeFileSync(join(dir, path), content, { flag: "wx" });
        }
        // The child runtime, bundled into one module, as every package carries it.
        const runtime = dirname(createRequire(import.meta.url).resolve("@rukh/ipc/runtime"));
        const vendored = join(dir, "node_modules", "@rukh", "ipc");
        mkdirSync(vendored, { recursive: true });
        for (const f of ["package.json", "index.js"])
          copyFileSync(join(runtime, f), join(vendored, f));
        const written = [...Object.keys(files), "node_modules/@rukh/ipc/index.js"];
        print(
          ctx,
          `wrote ${id} into ${dir}:\n${written.map((f) => `  ${f}`).join("\n")}\nnext: ${brand} ext validate ${dir}`,
          { id, dir, files: written },
        );
        return OK;
      }),
    },
  ];
}
