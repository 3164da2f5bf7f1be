// `ext`: installing, upgrading, enabling, disabling and removing extensions.
// Its steps: what each word of `ext install` installs from — a folder, a
// file, or an npm package spec fetched from its registry (`_sources.ts`);
// one publication of every change; what it did to each extension, in words
// and as data (`_changes.ts`); `ext outdated` and `ext upgrade` under the
// same version rules (`_upgrade.ts`); and enable, disable, remove, list.
// It imports the kit room.

import { type CliBuiltin, terminalLine } from "@rukh/cli";
import {
  type AdminBody,
  arg,
  args,
  bool,
  candidates,
  current,
  OK,
  print,
  reported,
  text,
  texts,
} from "../kit/index.js";
import { installChanges, originText } from "./_changes.js";
import { installSources } from "./_sources.js";
import { upgradeBuiltins } from "./_upgrade.js";

/** The `ext` commands. */
export function extBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["ext", "install"],
      changesState: true,
      summary:
        "Install or upgrade signed extension packages, all in one publication (a new one is allowed in the default preset)",
      inputs: [
        args(
          "packages",
          "The signed packages: directories, .tgz files or npm package specs (@jane/hello, @jane/hello@^1.2, @jane/hello@next), fetched through npm's configuration; an existing path wins over a spec",
          { position: 0, maxItems: 1_000 },
        ),
        bool("allow_downgrade", "Install them even if a version is lower than the installed one"),
      ],
      run: guarded(async (ctx, state, profile) => {
        const sources = texts(ctx.inputs, "packages");
        const from = await current(state, brand);
        const arriving = await installSources(
          ctx,
          sources,
          from.config,
          profile.PACKAGE_MAX_COMPRESSED_BYTES,
        );
        // One publication: the first configuration (if any), every package,
        // and the pattern of each new one in the default preset.
        const p = await state.apply(
          [
            ...(from.base === null ? [{ op: "setConfig" as const, config: from.config }] : []),
            ...arriving.map((source) => ({
              op: "install" as const,
              ...source,
              allowIn: from.config.defaultPreset,
              allowDowngrade: ctx.inputs.allow_downgrade === true,
            })),
          ],
          { base: from.base },
        );
        const did = installChanges(from.revision?.extensions ?? [], p, profile);
        if (!p.published || did.length === 0) {
          const what = sources.length === 1 ? `${terminalLine(sources[0]!)} is` : "they are";
          print(ctx, `${what} already installed (the same packages); nothing published`, {
            revisionId: p.revisionId,
            published: false,
            changes: [],
          });
          return OK;
        }
        print(
          ctx,
          `${did.map((d) => d.text).join(", ")}; published profile revision ${p.revisionId.slice(0, 12)}`,
          { revisionId: p.revisionId, published: true, changes: did.map((d) => d.change) },
        );
        return OK;
      }),
    },
    ...(["remove", "enable", "disable"] as const).map(
      (op): CliBuiltin => ({
        path: ["ext", op],
        changesState: true,
        summary: `${op[0]!.toUpperCase()}${op.slice(1)} an installed extension`,
        inputs: [arg("extension", "The extension id", 0, { maxLength: 256 })],
        suggest: (_id, stateDir) => candidates(stateDir, "extensions"),
        run: guarded(async (ctx, state) => {
          const id = text(ctx.inputs, "extension")!;
          const from = await current(state, brand);
          const p = await state[op](id, { base: from.base });
          return reported(ctx, p, `${op}d ${terminalLine(id)}`);
        }),
      }),
    ),
    ...upgradeBuiltins(brand, guarded),
    {
      path: ["ext", "list"],
      summary: "List installed extensions",
      inputs: [],
      run: guarded(async (ctx, state) => {
        const { revision } = await current(state, brand);
        const exts = revision?.extensions ?? [];
        const lines = exts.map(
          (e) =>
            `${e.id}@${e.version}  ${e.publisher}  ${e.enabled ? "enabled" : "disabled"}  ${e.digest.slice(0, 12)}${e.dev === undefined ? "" : `  [dev] linked from ${terminalLine(e.dev)}`}${terminalLine(originText(e))}`,
        );
        print(ctx, lines.length ? lines.join("\n") : "no extensions installed", exts);
        return OK;
      }),
    },
  ];
}
