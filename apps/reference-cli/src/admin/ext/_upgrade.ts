// `ext outdated` and `ext upgrade`: what the registries offer each extension
// installed from one, and the wanted versions installed in one publication
// under the same version rules as any install.

import { type CliBuiltin, terminalLine } from "@rukh/cli";
import type { InstalledExtension, ProfileRevision } from "@rukh/profile";
import type { NpmOptions, OutdatedVersions, Packument } from "@rukh/registry";
import { type AdminBody, args, bool, current, OK, print, texts, UsageError } from "../kit/index.js";
import { installChanges } from "./_changes.js";
import {
  fetched,
  type InstallSource,
  loadRegistry,
  maxArchiveBytes,
  npmOptions,
  type Registry,
} from "./_sources.js";

/** What an upgrade refusal points at: the extensions installed, and where from. */
const EXTENSIONS = ["ext", "list"];

/** One registry-installed extension and what its registry offers it now. */
interface Offer extends OutdatedVersions {
  readonly id: string;
  readonly name: string;
  readonly registry: string;
  readonly packument: Packument;
}

/** What the registries offer each extension of `revision` installed from one (of `ids`, if given). */
async function offers(
  registry: Registry,
  npm: NpmOptions,
  extensions: readonly InstalledExtension[],
): Promise<Offer[]> {
  return Promise.all(
    extensions.map(async (e) => {
      const o = e.origin!;
      const spec = registry.registrySpec(`${o.name}@${o.spec}`);
      if (spec === undefined)
        throw new UsageError(`${e.id}: its recorded spec "${o.spec}" is not a registry spec`, {
          see: EXTENSIONS,
        });
      const { packument, registry: at } = await registry.fetchPackument(o.name, npm);
      const v = registry.outdatedOf(packument, spec, e.version, at);
      return { id: e.id, name: o.name, registry: at, packument, ...v };
    }),
  );
}

/** The registry-installed extensions `ids` name (all of them for none). */
function fromRegistry(
  revision: ProfileRevision | undefined,
  ids: readonly string[],
): InstalledExtension[] {
  const installed = revision?.extensions ?? [];
  for (const id of ids) {
    const e = installed.find((x) => x.id === id);
    if (e === undefined)
      throw new UsageError(`extension "${id}" is not installed`, { see: EXTENSIONS });
    if (e.origin === undefined)
      throw new UsageError(
        `${id} was not installed from a registry; install its new package file instead`,
        { see: EXTENSIONS },
      );
  }
  return installed.filter(
    (e) => e.origin !== undefined && (ids.length === 0 || ids.includes(e.id)),
  );
}

/** A row of `ext outdated`: each cell one line, whatever a registry sent. */
function offerLine(o: Offer): string {
  return [o.id, o.name, o.current, o.wanted, o.latest, o.registry].map(terminalLine).join("  ");
}

function offerData(o: Offer): Record<string, string> {
  return {
    id: o.id,
    name: o.name,
    current: o.current,
    wanted: o.wanted,
    latest: o.latest,
    registry: o.registry,
  };
}

/** The `ext outdated` and `ext upgrade` commands. */
export function upgradeBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["ext", "outdated"],
      summary: "Show installed, wanted and latest versions of extensions installed from a registry",
      inputs: [],
      run: guarded(async (ctx, state) => {
        const { revision } = await current(state, brand);
        const registry = await loadRegistry();
        const all = await offers(
          registry,
          await npmOptions(registry, ctx),
          fromRegistry(revision, []),
        );
        const behind = all.filter((o) => o.current !== o.wanted || o.current !== o.latest);
        print(
          ctx,
          behind.length === 0
            ? `${all.length === 0 ? "no extension installed from a registry" : "every extension installed from a registry is at its wanted and latest version"}`
            : [
                "extension  package  current  wanted  latest  registry",
                ...behind.map(offerLine),
              ].join("\n"),
          { outdated: behind.map(offerData) },
        );
        return OK;
      }),
    },
    {
      path: ["ext", "upgrade"],
      // A dry run changes nothing.
      changesState: (inputs) => inputs.dry_run !== true,
      summary:
        "Install the wanted versions of extensions installed from a registry, all in one publication",
      inputs: [
        args("extensions", "The extension ids (with --all: every one installed from a registry)", {
          position: 0,
          maxItems: 1_000,
          minItems: 0,
        }),
        bool("all", "Every extension installed from a registry"),
        bool("dry_run", "Say what would be upgraded, and publish nothing"),
        bool(
          "allow_downgrade",
          "Install a wanted version even if it is lower than the installed one",
        ),
      ],
      run: guarded(async (ctx, state, profile) => {
        const ids = texts(ctx.inputs, "extensions");
        if (ids.length === 0 && ctx.inputs.all !== true)
          throw new UsageError("name the extensions to upgrade, or pass --all");
        const from = await current(state, brand);
        const registry = await loadRegistry();
        const npm = await npmOptions(registry, ctx);
        const moving = (await offers(registry, npm, fromRegistry(from.revision, ids))).filter(
          (o) => o.wanted !== o.current,
        );
        const allowDowngrade = ctx.inputs.allow_downgrade === true;
        if (ctx.inputs.dry_run === true || moving.length === 0) {
          const lines = moving.map((o) => {
            const down = profile.compareVersions(o.wanted, o.current) < 0;
            return `would ${down ? "downgrade" : "upgrade"} ${o.id} ${o.current} → ${o.wanted}${down && !allowDowngrade ? " (a downgrade: refused without --allow-downgrade)" : ""}`;
          });
          print(
            ctx,
            moving.length === 0
              ? "nothing to upgrade; nothing published"
              : `${lines.join("\n")}\nnothing published (--dry-run)`,
            {
              published: false,
              upgrades: moving.map(offerData),
            },
          );
          return OK;
        }
        const maxBytes = maxArchiveBytes(from.config, profile.PACKAGE_MAX_COMPRESSED_BYTES);
        const sources: InstallSource[] = [];
        for (const o of moving) {
          const ext = from.revision!.extensions.find((e) => e.id === o.id)!;
          sources.push(
            await fetched(registry, ctx, {
              npm,
              resolution: registry.resolutionOf(o.packument, o.name, o.wanted, o.registry),
              spec: ext.origin!.spec,
              maxBytes,
            }),
          );
        }
        const p = await state.apply(
          sources.map((s) => ({ op: "install" as const, ...s, allowDowngrade })),
          { base: from.base },
        );
        const did = installChanges(from.revision?.extensions ?? [], p, profile);
        print(
          ctx,
          p.published
            ? `${did.map((d) => d.text).join(", ")}; published profile revision ${p.revisionId.slice(0, 12)}`
            : "nothing changed; nothing published",
          { revisionId: p.revisionId, published: p.published, changes: did.map((d) => d.change) },
        );
        return OK;
      }),
    },
  ];
}
