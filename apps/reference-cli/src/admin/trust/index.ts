// `trust`: which publishers' signatures the profile accepts, for which
// extension ids. Keys are never replaced by accident: adding a known
// publisher is refused, rotating its key is a command of its own. Its
// steps: add, rotate, remove, list — each one publication of the owner
// configuration, compare-and-set on the active revision. It imports the
// kit room.

import { type CliBuiltin, terminalLine } from "@rukh/cli";
import type { OwnerConfig, TrustedPublisher } from "@rukh/profile";
import {
  type AdminBody,
  arg,
  candidates,
  current,
  flag,
  many,
  OK,
  print,
  publishConfig,
  Refusal,
  readOwnerFile,
  reported,
  text,
  texts,
  UsageError,
} from "../kit/index.js";

/** A public key file holds 44 base64 characters and a newline; anything much larger is not one. */
const PUBLIC_KEY_MAX_BYTES = 1_024;
const PUBLISHER = /^[a-z][a-z0-9-]*$/;
/** What a trust refusal points at: the publishers trusted now. */
const PUBLISHERS = ["trust", "list"];

function readKey(file: string): string {
  return readOwnerFile(file, PUBLIC_KEY_MAX_BYTES, "a public key file (44 base64 characters)")
    .toString("utf8")
    .trim();
}

function publisherArg(value: unknown, flag: boolean): string {
  const where = flag ? "--publisher" : "<publisher>";
  if (typeof value !== "string" || value === "")
    throw new UsageError(
      `${where} is required: the publisher id the key belongs to (never guessed from a file name)`,
    );
  if (!PUBLISHER.test(value))
    throw new UsageError(
      `${where} ${JSON.stringify(value)}: expected a lowercase publisher id such as acme`,
    );
  return value;
}

function known(config: OwnerConfig, id: string): TrustedPublisher {
  const p = config.trustedPublishers.find((t) => t.id === id);
  if (p === undefined)
    throw new Refusal(
      `publisher ${terminalLine(id)} is not trusted; trusted: ${config.trustedPublishers.map((t) => t.id).join(", ") || "none"}`,
      { see: PUBLISHERS },
    );
  return p;
}

/** The `trust` commands. */
export function trustBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["trust", "add"],
      changesState: true,
      summary:
        "Trust a new publisher's Ed25519 public key (base64 of its 32 raw bytes) for its namespaces",
      inputs: [
        arg("key_file", "The public key file (base64 of the 32 raw bytes)"),
        flag("publisher", "The publisher id the key belongs to", { required: true, maxLength: 64 }),
        many(
          "namespace",
          "An extension id, or prefix.* for every id under it, it may also install",
        ),
      ],
      run: guarded(async (ctx, state, { namespacesOf }) => {
        const keyFile = text(ctx.inputs, "key_file")!;
        const id = publisherArg(text(ctx.inputs, "publisher"), true);
        const publicKey = readKey(keyFile);
        const namespaces = texts(ctx.inputs, "namespace");
        const from = await current(state, brand);
        const prior = from.config.trustedPublishers.find((t) => t.id === id);
        if (prior !== undefined && prior.publicKey !== publicKey)
          throw new Refusal(
            `publisher ${id} is already trusted with another key; to replace it, run: ${brand} trust rotate ${id} ${keyFile}`,
            { see: PUBLISHERS },
          );
        const twin = from.config.trustedPublishers.find(
          (t) => t.publicKey === publicKey && t.id !== id,
        );
        if (twin !== undefined)
          throw new Refusal(`this key is already trusted as publisher ${twin.id}`, {
            see: PUBLISHERS,
          });
        const entry: TrustedPublisher = {
          ...(prior ?? { id, publicKey }),
          ...(namespaces.length > 0 && {
            namespaces: [
              ...new Set([
                ...(prior === undefined ? [`${id}.*`] : namespacesOf(prior)),
                ...namespaces,
              ]),
            ],
          }),
        };
        const others = from.config.trustedPublishers.filter((t) => t.id !== id);
        return publishConfig(ctx, state, {
          from,
          config: { ...from.config, trustedPublishers: [...others, entry] },
          what: `trusted publisher ${id} for ${namespacesOf(entry).join(", ")}`,
        });
      }),
    },
    {
      path: ["trust", "rotate"],
      changesState: true,
      summary: "Replace a trusted publisher's key; its installed extensions stay installed",
      inputs: [
        arg("publisher", "The trusted publisher's id", 0, { maxLength: 64 }),
        arg("key_file", "Its new public key file", 1),
      ],
      suggest: (id, stateDir) => (id === "publisher" ? candidates(stateDir, "publishers") : []),
      run: guarded(async (ctx, state) => {
        const id = publisherArg(text(ctx.inputs, "publisher"), false);
        const publicKey = readKey(text(ctx.inputs, "key_file")!);
        const from = await current(state, brand);
        const prior = known(from.config, id);
        if (prior.publicKey === publicKey)
          throw new Refusal(`publisher ${id} is already trusted with this key; nothing to rotate`, {
            see: PUBLISHERS,
          });
        const signed = (from.revision?.extensions ?? []).filter((e) => e.publisher === id);
        const p = await state.setConfig(
          {
            ...from.config,
            trustedPublishers: from.config.trustedPublishers.map((t) =>
              t.id === id ? { ...t, publicKey } : t,
            ),
          },
          { base: from.base },
        );
        const affected =
          signed.length === 0
            ? "no installed extensions were signed with the old key"
            : `installed with the old key, and staying installed: ${signed.map((e) => `${e.id}@${e.version}`).join(", ")}; their next versions must be signed with the new key`;
        return reported(ctx, p, `rotated publisher ${id}'s key (${affected})`);
      }),
    },
    {
      path: ["trust", "remove"],
      changesState: true,
      summary: "Stop trusting a publisher; its extensions are disabled in the same publication",
      inputs: [arg("publisher", "The trusted publisher's id", 0, { maxLength: 64 })],
      suggest: (_id, stateDir) => candidates(stateDir, "publishers"),
      run: guarded(async (ctx, state) => {
        const id = publisherArg(text(ctx.inputs, "publisher"), false);
        const from = await current(state, brand);
        known(from.config, id);
        const theirs = (from.revision?.extensions ?? []).filter((e) => e.publisher === id);
        const p = await state.apply(
          [
            {
              op: "setConfig",
              config: {
                ...from.config,
                trustedPublishers: from.config.trustedPublishers.filter((t) => t.id !== id),
              },
            },
            ...theirs.filter((e) => e.enabled).map((e) => ({ op: "disable" as const, id: e.id })),
          ],
          { base: from.base },
        );
        const disabled =
          theirs.length === 0
            ? "it had no extensions installed"
            : `disabled ${theirs.map((e) => `${e.id}@${e.version}`).join(", ")} (remove with: ${brand} ext remove <id>)`;
        return reported(ctx, p, `stopped trusting publisher ${id}; ${disabled}`);
      }),
    },
    {
      path: ["trust", "list"],
      summary: "List trusted publishers, their keys and namespaces",
      inputs: [],
      run: guarded(async (ctx, state, { namespacesOf }) => {
        const { config } = await current(state, brand);
        const list = config.trustedPublishers.map((p) => ({
          id: p.id,
          publicKey: p.publicKey,
          namespaces: namespacesOf(p),
        }));
        print(
          ctx,
          list.map((p) => `${p.id}  ${p.publicKey}  ${p.namespaces.join(", ")}`).join("\n") ||
            "no trusted publishers",
          list,
        );
        return OK;
      }),
    },
  ];
}
