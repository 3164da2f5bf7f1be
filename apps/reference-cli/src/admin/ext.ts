// `ext`: installing, upgrading, enabling, disabling and removing extensions.

import type { CliBuiltin } from "@rukh/cli";
import { compareVersions, type InstalledExtension, type Publication } from "@rukh/profile";
import { candidates, current, reported } from "./_current.js";
import { arg, bool, text } from "./_inputs.js";
import { type AdminBody, OK, print, safe } from "./_kit.js";

/** What one install did to one extension, in words and as data. */
function installChange(
  before: readonly InstalledExtension[],
  p: Publication,
): { text: string; change: Record<string, string> } | undefined {
  for (const e of p.revision.extensions) {
    const prior = before.find((b) => b.id === e.id);
    if (prior?.digest === e.digest) continue;
    if (prior === undefined)
      return {
        text: `installed ${e.id} ${e.version}`,
        change: { id: e.id, change: "installed", to: e.version },
      };
    const verb = compareVersions(e.version, prior.version) < 0 ? "downgraded" : "upgraded";
    return {
      text: `${verb} ${e.id} ${prior.version} → ${e.version}`,
      change: { id: e.id, change: verb, from: prior.version, to: e.version },
    };
  }
  return undefined;
}

/** The `ext` commands. */
export function extBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["ext", "install"],
      summary:
        "Install or upgrade a signed extension package (a new one is allowed in the default preset)",
      inputs: [
        arg("package", "The signed package: a directory or a .tgz file"),
        bool("allow_downgrade", "Install it even if its version is lower than the installed one"),
      ],
      run: guarded(async (ctx, home) => {
        const source = text(ctx.inputs, "package")!;
        const from = await current(home, brand);
        // One publication: the first configuration (if any), the package, and
        // its pattern in the default preset when it is new.
        const p = await home.apply(
          [
            ...(from.base === null ? [{ op: "setConfig" as const, config: from.config }] : []),
            {
              op: "install",
              source,
              allowIn: from.config.defaultPreset,
              allowDowngrade: ctx.inputs.allow_downgrade === true,
            },
          ],
          { base: from.base },
        );
        const did = installChange(from.revision?.extensions ?? [], p);
        if (!p.published || did === undefined) {
          print(ctx, `${safe(source)} is already installed (the same package); nothing published`, {
            revisionId: p.revisionId,
            published: false,
          });
          return OK;
        }
        print(ctx, `${did.text}; published profile revision ${p.revisionId.slice(0, 12)}`, {
          revisionId: p.revisionId,
          published: true,
          ...did.change,
        });
        return OK;
      }),
    },
    ...(["remove", "enable", "disable"] as const).map(
      (op): CliBuiltin => ({
        path: ["ext", op],
        summary: `${op[0]!.toUpperCase()}${op.slice(1)} an installed extension`,
        inputs: [arg("extension", "The extension id", 0, { maxLength: 256 })],
        suggest: (_id, stateDir) => candidates(stateDir, "extensions"),
        run: guarded(async (ctx, home) => {
          const id = text(ctx.inputs, "extension")!;
          const from = await current(home, brand);
          const p = await home[op](id, { base: from.base });
          return reported(ctx, p, `${op}d ${safe(id)}`);
        }),
      }),
    ),
    {
      path: ["ext", "list"],
      summary: "List installed extensions",
      inputs: [],
      run: guarded(async (ctx, home) => {
        const { revision } = await current(home, brand);
        const exts = revision?.extensions ?? [];
        const lines = exts.map(
          (e) =>
            `${e.id}@${e.version}  ${e.publisher}  ${e.enabled ? "enabled" : "disabled"}  ${e.digest.slice(0, 12)}`,
        );
        print(ctx, lines.length ? lines.join("\n") : "no extensions installed", exts);
        return OK;
      }),
    },
  ];
}
