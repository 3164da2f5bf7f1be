// An extension author's commands: `ext init` writes a new package, `keygen`
// makes a publisher's Ed25519 key pair (the private key is written for its
// owner only and never printed), `ext sign` signs a package with it, `ext
// validate` runs every check an install makes without installing, and `ext
// pack` writes the signed, self-contained file an owner installs.

import { generateKeyPairSync } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { CliBuiltin } from "@rukh/cli";
import {
  isInside,
  refuseKeysInside,
  reportLines,
  signingKey,
  vendorRuntime,
  writeNew,
} from "./_authoring.js";
import { arg, flag, oneOf, text } from "./_inputs.js";
import { type AdminBody, OK, print, REFUSED, UsageError } from "./_kit.js";
import { SKELETON_LANGUAGES, skeletonFiles } from "./_skeleton.js";

const PUBLISHER = /^[a-z][a-z0-9-]{0,63}$/;
/** `<publisher>.<name>`: the publisher's namespace first, as trust expects. */
const EXTENSION_ID = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;

/** The author's commands. */
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
        if (existsSync(join(dir, "rukh-extension.json")))
          throw new UsageError(
            `${dir} is a package directory, and everything in it is published; give --out a directory outside it`,
          );
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
        const pem = signingKey(dir, resolve(text(ctx.inputs, "key")!));
        refuseKeysInside(dir);
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
        const lines = reportLines(dir, report);
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
        vendorRuntime(dir);
        const written = [...Object.keys(files), "node_modules/@rukh/ipc/index.js"];
        print(
          ctx,
          `wrote ${id} into ${dir}:\n${written.map((f) => `  ${f}`).join("\n")}\nnext: ${brand} ext validate ${dir}`,
          { id, dir, files: written },
        );
        return OK;
      }),
    },
    {
      path: ["ext", "pack"],
      summary:
        "Write the signed, self-contained .tgz of a package directory (runtime vendored, every install check passed)",
      inputs: [
        arg("dir", "The package directory"),
        flag("output", "The file to write (default: <id>-<version>.tgz here)", {
          short: "o",
          maxLength: 4096,
        }),
        flag("key", "Sign with this private key first (default: keep the package's signature)", {
          maxLength: 4096,
        }),
      ],
      run: guarded(async (ctx, home, profile) => {
        const dir = resolve(text(ctx.inputs, "dir")!);
        const keyFile = text(ctx.inputs, "key");
        const pem = keyFile === undefined ? undefined : signingKey(dir, resolve(keyFile));
        // Staged in a copy: the author's directory is left as it is.
        const stage = mkdtempSync(join(tmpdir(), "rukh-pack-"));
        try {
          cpSync(dir, stage, { recursive: true, verbatimSymlinks: true });
          refuseKeysInside(stage);
          const active = await home.activeRevisionId();
          const config = active === null ? undefined : (await home.readRevision(active)).config;
          let report = await profile.validatePackageDir(stage, config);
          const node = report.descriptor?.commands.some((c) => c.execute.runtime === "node");
          if (
            node === true &&
            !existsSync(join(stage, "node_modules", "@rukh", "ipc", "index.js"))
          ) {
            if (pem === undefined)
              throw new UsageError(
                `${dir} has no vendored runtime; pack adds it, which changes the signed files: give --key <file> to sign them`,
              );
            vendorRuntime(stage);
          }
          if (pem !== undefined) await profile.signPackage(stage, pem);
          report = await profile.validatePackageDir(stage, config);
          if (report.signature.state === "unsigned" && report.ok)
            throw new UsageError(
              `${dir} is not signed; give --key <file> to sign it as it is packed`,
            );
          if (!report.ok) {
            ctx.stderr.write(`${reportLines(dir, report).join("\n")}\n`);
            return REFUSED;
          }
          const d = report.descriptor!;
          const out = resolve(text(ctx.inputs, "output") ?? `${d.id}-${d.version}.tgz`);
          // Inside the package it would be packed again next time.
          if (isInside(realpathSync(dir), resolve(realpathSync(dirname(out)), basename(out))))
            throw new UsageError(`${out} is inside the package; give -o a file outside ${dir}`);
          const tgz = await profile.packPackage(stage);
          try {
            writeFileSync(out, tgz, { flag: "wx", mode: 0o644 });
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "EEXIST")
              throw new UsageError(`${out} already exists; give -o another file`);
            throw e;
          }
          const sig = report.signature as { publisher: string };
          print(
            ctx,
            `packed ${d.id}@${d.version} into ${out} (${tgz.length} bytes, signed by ${sig.publisher})`,
            {
              id: d.id,
              version: d.version,
              file: out,
              bytes: tgz.length,
              digest: report.digest,
              publisher: sig.publisher,
            },
          );
          return OK;
        } finally {
          rmSync(stage, { recursive: true, force: true });
        }
      }),
    },
  ];
}
