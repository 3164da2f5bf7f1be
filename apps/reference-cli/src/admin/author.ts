// An extension author's tools: `keygen` makes a publisher's Ed25519 key pair,
// `ext sign` signs a package directory with it (the private key is written
// for its owner only and never printed), and `ext validate` runs every check
// an install makes of a package without installing it.

import { generateKeyPairSync } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  openSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join, resolve } from "node:path";
import type { CliBuiltin } from "@rukh/cli";
import { arg, flag, text } from "./_inputs.js";
import { type AdminBody, OK, plural, print, REFUSED, readBounded, UsageError } from "./_kit.js";

/** A PEM Ed25519 private key is about 120 bytes; anything much larger is not one. */
const PRIVATE_KEY_MAX_BYTES = 4_096;
const PUBLISHER = /^[a-z][a-z0-9-]{0,63}$/;

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
        const pem = readPrivateKey(resolve(text(ctx.inputs, "key")!));
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
  ];
}
