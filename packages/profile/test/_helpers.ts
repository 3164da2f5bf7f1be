import { createHash, generateKeyPairSync, type KeyObject } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { publicKeyBase64, signPackage } from "../src/index.js";

export const FIXTURE_KEY = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.key", import.meta.url),
  "utf8",
);
export const FIXTURE_PUB = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.pub", import.meta.url),
  "utf8",
).trim();

export function tempDir(prefix = "rukh-profile-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function otherKey(): { privateKey: KeyObject; publicKey: string } {
  const { privateKey } = generateKeyPairSync("ed25519");
  return { privateKey, publicKey: publicKeyBase64(privateKey) };
}

/** The execute block of a fixture command: `bin/run.mjs` (which {@link makePackage} writes) under Node, answering text. */
export function textExecute(): object {
  return { mapping: "managed", program: "bin/run.mjs", runtime: "node", result: { kind: "text" } };
}

/** The machine block of a command agents may call (`eligible`), with its `interaction` when one is given. */
export function toolMachine(interaction?: string, eligible = true): object {
  return {
    eligible,
    ...(interaction !== undefined && { interaction }),
    requiredFeatures: ["rukh.command-result/1"],
  };
}

/** How a fixture tool runs and that agents may call it without asking: its execute and machine blocks. */
export function textTool(): { execute: object; machine: object } {
  return { execute: textExecute(), machine: toolMachine("none") };
}

/** What `fn` throws, or undefined when it returns: for a test that reads the error's fields. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/**
 * A `rukh.profile/1` revision record, as validateRevision reads one: the
 * fixture owner config and one installed extension, `jane.hello` at
 * `version`, with `fields` added to its entry.
 */
export function janeRevision(version: string, fields: object = {}): object {
  return {
    format: "rukh.profile/1",
    sequence: 1,
    parent: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    config: ownerConfig(),
    extensions: [
      {
        id: "jane.hello",
        version,
        publisher: "jane",
        digest: "a".repeat(64),
        enabled: true,
        ...fields,
      },
    ],
    commandGeneration: 1,
  };
}

export interface CommandDef {
  readonly id: string;
  readonly path?: readonly string[];
  readonly aliases?: readonly (readonly string[])[];
  readonly eligible?: boolean;
}

export function descriptor(id: string, publisher: string, commands: readonly CommandDef[]): object {
  return {
    format: "rukh.extension/2",
    id,
    version: "1.0.0",
    publisher,
    commands: commands.map((c) => ({
      id: c.id,
      path: c.path ?? [c.id],
      ...(c.aliases && { aliases: c.aliases }),
      summary: `Run ${c.id}`,
      inputs: [{ id: "name", type: "string", maxLength: 64, summary: "A name", required: true }],
      execute: textExecute(),
      machine: toolMachine("none", c.eligible ?? true),
    })),
  };
}

/** Writes and signs a package directory; returns its path. */
export async function makePackage(
  parent: string,
  desc: object,
  key: KeyObject | string = FIXTURE_KEY,
  extra: Record<string, string> = {},
): Promise<string> {
  const dir = mkdtempSync(join(parent, "pkg-"));
  writeFileSync(join(dir, "rukh-extension.json"), JSON.stringify(desc, null, 2));
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "run.mjs"), "process.exit(0);\n");
  for (const [p, text] of Object.entries(extra)) writeFileSync(join(dir, p), text);
  await signPackage(dir, key, { publisher: (desc as { publisher?: string }).publisher ?? "acme" });
  return dir;
}

export function ownerConfig(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    brand: "acme",
    endpointNamespace: "acme-test",
    trustedPublishers: [{ id: "acme", publicKey: FIXTURE_PUB }],
    exposure: { extensions: ["acme.files", "acme.more"] },
    presets: {
      default: {
        commands: ["acme.files/*", "acme.more/*"],
        actions: [],
        resources: [],
        deadlineMs: 1000,
        maxConcurrency: 2,
        enforcement: "strict",
      },
      narrow: {
        commands: ["acme.files/a"],
        actions: [],
        resources: [],
        deadlineMs: 1000,
        maxConcurrency: 1,
        enforcement: "strict",
      },
    },
    defaultPreset: "default",
    ...over,
  };
}

/**
 * Every path under root with a hash of its content (directories marked);
 * `cache/` (the store check's records, rebuilt on demand) is left out.
 */
export function listing(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      if (p === "cache") continue;
      const st = lstatSync(join(root, p));
      if (st.isDirectory()) {
        out.push(`${p}/`);
        walk(p);
      } else
        out.push(
          `${p} ${createHash("sha256")
            .update(readFileSync(join(root, p)))
            .digest("hex")
            .slice(0, 12)}`,
        );
    }
  };
  walk("");
  return out;
}

/** A hand-built tar.gz (for hostile archives the real packer would never write). */
export function rawTgz(
  entries: readonly { name: string; type?: string; data?: Buffer; size?: number }[],
): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.data ?? Buffer.alloc(0);
    const h = Buffer.alloc(512);
    h.write(e.name, 0, 100, "utf8");
    h.write("0000644\0", 100, "latin1");
    h.write("0000000\0", 108, "latin1");
    h.write("0000000\0", 116, "latin1");
    h.write(`${(e.size ?? data.length).toString(8).padStart(11, "0")}\0`, 124, "latin1");
    h.write("00000000000\0", 136, "latin1");
    h.write("        ", 148, "latin1");
    h.write(e.type ?? "0", 156, "latin1");
    h.write("ustar\0", 257, "latin1");
    h.write("00", 263, "latin1");
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
    parts.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}
