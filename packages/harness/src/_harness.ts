// An author's package, run as an owner would run it: copied, signed with a
// key made for this run, trusted, installed into a state directory of its
// own and called through the invocation core, with nothing of the author's
// machine state read or written.

import { generateKeyPairSync } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  createInvocationCore,
  type InvocationCore,
  type InvocationProgress,
  type OutcomeDiagnostic,
  type OutcomeEnvelope,
  outcomeDiagnostic,
  outcomeEnvelope,
} from "@rukh/core";
import { type CommandSpec, DESCRIPTOR_MAX_BYTES, parseDescriptor } from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";
import { publicKeyBase64, StateDirectory, signPackage } from "@rukh/profile";
import { readFileAtMost as readBounded } from "@rukh/profile/route-cache";

/** Options of {@link testExtension}. */
export interface HarnessOptions {
  /** How commands are confined: `strict` needs bubblewrap (default `host-trusted`). */
  readonly enforcement?: "host-trusted" | "strict";
  /** The longest one call may run, in ms (default 30,000). */
  readonly deadlineMs?: number;
  /** Where to make the temporary directory (default the system's). */
  readonly tmpdir?: string;
}

/** Options of one {@link Harness.call}. */
export interface CallOptions {
  /** Which surface the call is made as (the journal records it; MCP calls need machine eligibility). Default `cli`. */
  readonly surface?: "cli" | "mcp";
  /** Cancels the call, as a client would. */
  readonly signal?: AbortSignal;
}

/** What a call returned: the envelope both surfaces show, what a failure adds, and the progress reported. */
export interface HarnessOutcome extends OutcomeEnvelope {
  readonly diagnostic?: OutcomeDiagnostic;
  readonly progress: readonly InvocationProgress[];
}

/** A package installed into a throw-away state directory (see {@link testExtension}). */
export interface Harness {
  /** The extension id and version the package declares. */
  readonly id: string;
  readonly version: string;
  /** The identity of every command it declares. */
  readonly commands: readonly string[];
  /** The temporary state directory (its journal and diagnostics log are there). */
  readonly stateDir: string;
  /**
   * Calls a command by identity, or by its id within the extension, with
   * JSON inputs exactly as an MCP client sends arguments.
   */
  call(command: string, inputs?: JsonObject, options?: CallOptions): Promise<HarnessOutcome>;
  /** Stops the core and removes the temporary directory (also as `await using`). */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Installs the package directory `dir` into a new, temporary state
 * directory, as its owner would: a copy signed with a key made for this run
 * (the directory itself is never written), its publisher trusted for its
 * id only, exposed, and allowed in one preset that grants what its commands
 * request. Every check an install makes applies; a package that would not
 * install throws the same error.
 *
 * @example
 * const h = await testExtension("./hello-ext");
 * const out = await h.call("hello", { name: "Ada" });
 * assert.equal(out.commandResult?.kind === "text" && out.commandResult.text, "Hello, Ada!\n");
 * await h.close();
 */
export async function testExtension(dir: string, options: HarnessOptions = {}): Promise<Harness> {
  const work = mkdtempSync(join(options.tmpdir ?? tmpdir(), "rukh-harness-"));
  try {
    return await open(resolve(dir), work, options);
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
}

async function open(dir: string, work: string, options: HarnessOptions): Promise<Harness> {
  const pkg = join(work, "package");
  // The copy keeps links as links, so an install refuses them as it would the original.
  cpSync(dir, pkg, { recursive: true, verbatimSymlinks: true });
  const bytes = readBounded(join(pkg, "rukh-extension.json"), DESCRIPTOR_MAX_BYTES);
  if (bytes === undefined)
    throw new Error(`${dir} has no rukh-extension.json: it is not an extension package`);
  if (bytes === "large")
    throw new Error(
      `${join(dir, "rukh-extension.json")} is larger than ${DESCRIPTOR_MAX_BYTES} bytes, the most a descriptor may have`,
    );
  const parsed = parseDescriptor(bytes);
  if (!parsed.ok)
    throw new Error(
      `${join(dir, "rukh-extension.json")} is not a valid descriptor: ${parsed.issues
        .map((i) => `${i.path} ${i.message}`.trim())
        .join("; ")}`,
    );
  const d = parsed.value;
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  await signPackage(pkg, privateKey, { publisher: d.publisher });
  const state = new StateDirectory(join(work, "state"));
  const requested = (k: "actions" | "resources") => [
    ...new Set(d.commands.flatMap((c) => c.requests[k])),
  ];
  await state.setConfig(
    JSON.stringify({
      brand: "rukh-harness",
      endpointNamespace: "rukh-harness",
      trustedPublishers: [
        { id: d.publisher, publicKey: publicKeyBase64(publicKey), namespaces: [d.id] },
      ],
      exposure: { extensions: [d.id] },
      presets: {
        default: {
          commands: [`${d.id}/*`],
          actions: requested("actions"),
          resources: requested("resources"),
          deadlineMs: options.deadlineMs ?? 30_000,
          maxConcurrency: 8,
          enforcement: options.enforcement ?? "host-trusted",
        },
      },
      defaultPreset: "default",
    }),
  );
  await state.install(pkg);
  const core = await createInvocationCore({
    state,
    binding: {
      subject: "harness",
      actor: "rukh-harness",
      taskAuthorityRef: "local",
      preset: "default",
    },
  });
  const byIdentity = new Map(d.commands.map((c) => [c.identity, c]));
  async function close(): Promise<void> {
    try {
      await core.close();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return {
    id: d.id,
    version: d.version,
    commands: [...byIdentity.keys()],
    stateDir: state.root,
    call: (command, inputs, callOptions) =>
      call(
        { core, commands: byIdentity },
        command.includes("/") ? command : `${d.id}/${command}`,
        inputs,
        callOptions,
      ),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The installed package a harness calls into: its core and its commands by identity. */
interface HarnessTarget {
  readonly core: InvocationCore;
  readonly commands: ReadonlyMap<string, CommandSpec>;
}

async function call(
  { core, commands }: HarnessTarget,
  identity: string,
  inputs: JsonObject | undefined,
  options: CallOptions = {},
): Promise<HarnessOutcome> {
  const surface = options.surface ?? "cli";
  const command = commands.get(identity);
  if (command === undefined)
    throw new Error(
      `the package declares no command ${JSON.stringify(identity)}; it declares ${[...commands.keys()].join(", ")}`,
    );
  const progress: InvocationProgress[] = [];
  const outcome = await core.invoke({
    command: { identity },
    supplied: { json: inputs ?? {} },
    surface,
    ...(options.signal !== undefined && { signal: options.signal }),
    onProgress: (p) => progress.push(p),
  });
  const diagnostic = outcomeDiagnostic(outcome);
  return {
    ...outcomeEnvelope(outcome),
    ...(diagnostic !== undefined && { diagnostic }),
    progress,
  };
}
