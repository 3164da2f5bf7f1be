// The package's sources: `ext init` writes a new package and `ext types`
// regenerates the handler types from its descriptor.

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { CliBuiltin } from "@rukh/cli";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import {
  type AdminBody,
  arg,
  bool,
  flag,
  OK,
  oneOf,
  plural,
  print,
  Refusal,
  text,
  UsageError,
} from "../kit/index.js";
import {
  reportRefusal,
  vendorPythonRuntime,
  vendorRuntime,
  vendorRuntimeArchive,
} from "./_authoring.js";
import {
  SKELETON_LANGUAGES,
  type SkeletonLanguage,
  skeletonFiles,
  TYPES_FILE,
} from "./_skeleton.js";

/** `<publisher>.<name>`: the publisher's namespace first, as trust expects. */
const EXTENSION_ID = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;

/** `ext init` and `ext types`. */
export function sourceBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
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
        oneOf(
          "lang",
          "The language of the command: js, ts, python, or sh for a CLI-only passthrough script (default: js)",
          SKELETON_LANGUAGES,
        ),
      ],
      run: guarded(async (ctx) => {
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
        const lang = (text(ctx.inputs, "lang") ?? "js") as SkeletonLanguage;
        const files = await skeletonFiles(id, brand, lang);
        for (const [path, content] of Object.entries(files)) {
          mkdirSync(dirname(join(dir, path)), { recursive: true });
          writeFileSync(join(dir, path), content, { flag: "wx" });
        }
        // What each language's program needs beside it: the runtime, in its language.
        const vendored = {
          js: "node_modules/@rukh/ipc/",
          ts: "node_modules/@rukh/ipc/",
          python: "bin/rukh_ipc.py",
          sh: undefined,
        }[lang];
        if (lang === "python") vendorPythonRuntime(dir);
        else if (vendored !== undefined) vendorRuntime(dir);
        // A Node package is an npm package: its runtime comes from a tarball npm extracts.
        const archive = lang === "ts" || lang === "js" ? [await vendorRuntimeArchive(dir)] : [];
        const written = [
          ...Object.keys(files),
          ...archive,
          ...(vendored === undefined ? [] : [vendored]),
        ];
        print(
          ctx,
          `wrote ${id} into ${dir}:\n${written.map((f) => `  ${f}`).join("\n")}\nnext: ${brand} ext validate ${dir}`,
          { id, dir, files: written },
        );
        return OK;
      }),
    },
    {
      path: ["ext", "types"],
      summary: `Write ${TYPES_FILE}: TypeScript types of every command's inputs and result, from the package's descriptor`,
      inputs: [
        arg("dir", "The package directory"),
        bool("check", `Write nothing; fail when ${TYPES_FILE} is missing or out of date`),
      ],
      run: guarded(async (ctx, _home, { validatePackageDir }) => {
        const dir = resolve(text(ctx.inputs, "dir")!);
        const report = await validatePackageDir(dir, undefined);
        const d = report.descriptor;
        if (d === undefined) throw reportRefusal(dir, report);
        const file = join(dir, TYPES_FILE);
        // A passthrough command has no handler, so no types.
        const managed = d.commands.filter((c) => c.execute.mapping === "managed").length;
        const { state, wanted } = await typesState(dir, d, brand);
        const fresh = state === "up to date";
        if (ctx.inputs.check === true) {
          if (!fresh) throw new Refusal(`${file} is ${state}; run: ${brand} ext types ${dir}`);
          print(ctx, `${file} is up to date`, { file, fresh });
          return OK;
        }
        if (!fresh) writeFileSync(file, wanted);
        print(
          ctx,
          `${fresh ? "kept" : "wrote"} ${file}: types of ${plural(managed, "command")} of ${d.id}@${d.version}`,
          { file, written: !fresh, commands: managed },
        );
        return OK;
      }),
    },
  ];
}

/** Whether a package's generated types match its descriptor, and the text they should have. */
export async function typesState(
  dir: string,
  descriptor: ExtensionDescriptor,
  brand: string,
): Promise<{ state: "up to date" | "missing" | "out of date"; wanted: string }> {
  const { descriptorTypes } = await import("@rukh/descriptor");
  const file = join(dir, TYPES_FILE);
  const wanted = descriptorTypes(descriptor, { generator: `${brand} ext types` });
  const current = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  const state =
    current === wanted ? "up to date" : current === undefined ? "missing" : "out of date";
  return { state, wanted };
}
