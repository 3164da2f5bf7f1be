// The package as it ships: `ext validate` runs every check an install makes
// without installing, and `ext pack` writes the signed, self-contained file
// an owner installs.

import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { CliBuiltin } from "@rukh/cli";
import type { PackageReport } from "@rukh/profile";
import { type AdminBody, arg, flag, OK, print, REFUSED, text, UsageError } from "../kit/index.js";
import {
  isInside,
  missingInterpreters,
  refuseKeysInside,
  reportLines,
  reportRefusal,
  runtimeCarriage,
  signingKey,
  vendorRuntime,
} from "./_authoring.js";
import { TYPES_FILE } from "./_skeleton.js";
import { typesState } from "./_source.js";

/** `ext validate` and `ext pack`. */
export function packageBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["ext", "validate"],
      summary:
        "Run every check an install makes of a package directory, and report every problem, without installing it",
      inputs: [arg("dir", "The package directory")],
      run: guarded(async (ctx, state, { validatePackageDir }) => {
        const dir = resolve(text(ctx.inputs, "dir")!);
        // The signature is verified too when this state directory trusts its publisher.
        const active = await state.activeRevisionId();
        const config = active === null ? undefined : (await state.readRevision(active)).config;
        const report = await validatePackageDir(dir, config);
        const d = report.descriptor;
        const lines = reportLines(dir, report);
        // Generated types that no longer match the descriptor mislead the author's compiler.
        const types = d === undefined ? undefined : (await typesState(dir, d, brand)).state;
        if (types === "out of date")
          lines.push(`note: ${TYPES_FILE} is out of date; run: ${brand} ext types ${dir}`);
        // A TypeScript package without them fails to compile, far from the cause.
        if (types === "missing" && existsSync(join(dir, "tsconfig.json")))
          lines.push(
            `note: ${TYPES_FILE} is missing, and tsconfig.json compiles this package; run: ${brand} ext types ${dir}`,
          );
        // Which way the package carries the runtime its Node programs import, or why it carries none.
        const node = d?.commands.some((c) => c.execute.runtime === "node") === true;
        const runtime = node ? runtimeCarriage(dir) : undefined;
        if (runtime !== undefined) lines.push(runtime.line);
        if (d !== undefined)
          lines.push(
            ...missingInterpreters(
              dir,
              d.commands
                .filter((c) => c.execute.runtime === "native")
                .map((c) => c.execute.program),
            ),
          );
        print(ctx, lines.join("\n"), validation(report, types, runtime));
        return report.ok ? OK : REFUSED;
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
      run: guarded(async (ctx, state, profile) => {
        const dir = resolve(text(ctx.inputs, "dir")!);
        const keyFile = text(ctx.inputs, "key");
        const pem = keyFile === undefined ? undefined : signingKey(dir, resolve(keyFile));
        // Staged in a copy: the author's directory is left as it is.
        const stage = mkdtempSync(join(tmpdir(), "rukh-pack-"));
        try {
          cpSync(dir, stage, { recursive: true, verbatimSymlinks: true });
          refuseKeysInside(stage);
          const active = await state.activeRevisionId();
          const config = active === null ? undefined : (await state.readRevision(active)).config;
          let report = await profile.validatePackageDir(stage, config);
          const node = report.descriptor?.commands.some((c) => c.execute.runtime === "node");
          if (
            node === true &&
            !existsSync(join(stage, "node_modules", "@rukh", "ipc", "index.js"))
          ) {
            // An npm package's runtime comes from npm, which Rukh does not run.
            if (existsSync(join(stage, "package.json")))
              throw new UsageError(
                `${dir} has no runtime under node_modules/@rukh/ipc; run npm install there first (${runtimeCarriage(dir).line})`,
              );
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
          if (!report.ok) throw reportRefusal(dir, report);
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

/** What `ext validate --json` says of a package. */
function validation(
  report: PackageReport,
  types: string | undefined,
  runtime: ReturnType<typeof runtimeCarriage> | undefined,
) {
  const d = report.descriptor;
  return {
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
    ...(types !== undefined && { types }),
    ...(runtime !== undefined && {
      runtime: {
        carried: runtime.carried,
        ...(runtime.version !== undefined && { version: runtime.version }),
        ...(runtime.sameAsCli !== undefined && { sameAsCli: runtime.sameAsCli }),
      },
    }),
  };
}
