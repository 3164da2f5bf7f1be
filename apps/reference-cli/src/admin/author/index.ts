// An extension author's commands, in the order an author meets them: the
// package's sources — `ext init` writes a new package from a skeleton
// (`_skeleton.ts`) and `ext types` regenerates its handler types
// (`_source.ts`); `ext test` runs its commands through the real core
// (`_test.ts`); `ext link` runs it unsigned from its directory while it is
// written (`_dev.ts`); `ext validate` and `ext pack`, the package as it
// ships (`_package.ts`); and here the keys: `keygen` makes a publisher's
// Ed25519 key pair in a folder made for its owner (`_key-folder.ts`; the
// private key is written for its owner only and never printed) and `ext
// sign` signs a package with it. What these share — files never replaced,
// keys read only when safe, the vendored runtime — is `_authoring.ts`. It
// imports the kit room.

import { generateKeyPairSync } from "node:crypto";
import { existsSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CliBuiltin } from "@rukh/cli";
import { type AdminBody, arg, flag, OK, print, text, UsageError } from "../kit/index.js";
import { refuseKeysInside, signingKey, writeNew } from "./_authoring.js";
import { devBuiltins } from "./_dev.js";
import { keyFolder } from "./_key-folder.js";
import { packageBuiltins } from "./_package.js";
import { sourceBuiltins } from "./_source.js";
import { testBuiltins } from "./_test.js";

const PUBLISHER = /^[a-z][a-z0-9-]{0,63}$/;

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
        flag(
          "out",
          "The directory to write both files to, made (mode 0700) when missing (default: the current one)",
          {
            maxLength: 4096,
          },
        ),
      ],
      run: guarded((ctx, _home, { publicKeyBase64 }) => {
        const publisher = text(ctx.inputs, "publisher")!;
        if (!PUBLISHER.test(publisher))
          throw new UsageError(
            `<publisher> ${JSON.stringify(publisher)}: expected a lowercase publisher id such as acme`,
          );
        const out = text(ctx.inputs, "out");
        const dir = resolve(out ?? process.cwd());
        if (out !== undefined) keyFolder(dir, out);
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
    ...packageBuiltins(brand, guarded),
    ...sourceBuiltins(brand, guarded),
    ...devBuiltins(brand, guarded),
    ...testBuiltins(guarded),
  ];
}
