import { readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join } from "node:path";
import type { HostBinding, InvocationOutcome } from "@rukh/core";
import type { CommandSpec, InputValue } from "@rukh/descriptor";
import type { CliRoute, StateDirectory } from "@rukh/profile";
import { COMPLETION_SHELLS, complete, completionScript } from "./_completion.js";
import { outputEnvelope } from "./_envelope.js";
import { CliError } from "./_errors.js";
import { EXIT_CODES, exitCodeOf } from "./_exit.js";
import { cachedRoutes, stateDirOf } from "./_fastpath.js";
import { ANSI, commandHelp, groupHelp, PLAIN, RUNNABLE, rootHelp, type Style } from "./_help.js";
import { issueMessage, lex, wantsHelp } from "./_lexer.js";
import { type CliBuiltin, RouteIndex, type RouteSource, tableSource } from "./_routes.js";
import { terminalJson, terminalText } from "./_terminal.js";

/**
 * Where the CLI writes; `process.stdout`/`process.stderr` fit.
 *
 * @example
 * let text = "";
 * const stdout: CliStream = { write: (s: string) => (text += s), isTTY: false };
 */
export interface CliStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/**
 * Options of {@link createCli}.
 *
 * @example
 * const options: CliOptions = { brand: "acme", version: "1.2.0" };
 */
export interface CliOptions {
  /** The command name, lower-case letters, digits and `-` (also the completion function name). */
  readonly brand: string;
  /** Printed by `--version` and in root help. */
  readonly version?: string;
  /** Default state directory when neither `RUKH_HOME` nor `--home` is given (default: the XDG location of the brand). */
  readonly stateDir?: string;
  /** Environment read for `RUKH_HOME`, `XDG_STATE_HOME`, `NO_COLOR`; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdout?: CliStream;
  readonly stderr?: CliStream;
  /** Overrides `isTTY` of both streams (JSON indentation, colour). */
  readonly isTTY?: boolean;
  /** The brand's own commands (install, trust, mcp serve…), routed before extension commands. */
  readonly builtins?: readonly CliBuiltin[];
  /** The host binding of CLI calls; defaults: the OS user, actor `"<brand>-cli"`, `"local"`, the owner's default preset. */
  readonly binding?: Partial<HostBinding>;
  /** The complete environment of command processes (the core's `env`; default `{ PATH }`). */
  readonly commandEnv?: Readonly<Record<string, string>>;
  /** Handle SIGINT/SIGTERM while a command runs (default `true`). */
  readonly handleSignals?: boolean;
  /** Working directory of command processes; default `process.cwd()`. */
  readonly cwd?: string;
}

/**
 * A branded CLI. `run` never throws for anything a user typed and never calls
 * `process.exit`; it resolves to the exit code.
 *
 * @example
 * const cli = createCli({ brand: "acme", version: "1.0.0" });
 * process.exitCode = await cli.run(process.argv.slice(2));
 */
export interface Cli {
  run(argv: readonly string[]): Promise<number>;
}

const BRAND = /^[a-z][a-z0-9-]{0,63}$/;
const INTRINSIC = new Set(["help", "completion", "__complete"]);

interface Globals {
  help: boolean;
  version: boolean;
  json: boolean;
  noColor: boolean;
  home?: string;
}

const hasColor = (env: Readonly<Record<string, string | undefined>>, tty: boolean, g: Globals) =>
  tty && !g.noColor && !env.NO_COLOR && env.TERM !== "dumb";

/**
 * Creates a branded CLI over the active profile revision: routes, groups and
 * aliases from the cached route table, generated help, exact typed parsing,
 * output and documented exit codes (docs/cli.md).
 *
 * @example
 * const cli = createCli({ brand: "acme", version: "1.0.0", builtins: [{ path: ["install"], summary: "Install a package", run: install }] });
 * process.exitCode = await cli.run(process.argv.slice(2));
 */
export function createCli(options: CliOptions): Cli {
  const { brand } = options;
  if (!BRAND.test(brand))
    throw new CliError("invalid_option", `brand ${JSON.stringify(brand)} must match ${BRAND}`);
  for (const b of options.builtins ?? [])
    if (b.path.length === 0 || INTRINSIC.has(b.path[0]!))
      throw new CliError(
        "builtin_conflict",
        `built-in "${b.path.join(" ")}" collides with a command the CLI provides itself (${[...INTRINSIC].join(", ")})`,
      );
  const env = options.env ?? process.env;
  const stdout: CliStream = options.stdout ?? process.stdout;
  const stderr: CliStream = options.stderr ?? process.stderr;
  const outTTY = options.isTTY ?? stdout.isTTY === true;
  const errTTY = options.isTTY ?? stderr.isTTY === true;

  async function run(argv: readonly string[]): Promise<number> {
    try {
      return await runUnguarded(argv);
    } catch (e) {
      // Anything unexpected (an unreadable state directory, a bug) is exit 5, never a stack trace.
      stderr.write(`error: ${(e as Error)?.message ?? String(e)}\n`);
      return EXIT_CODES.internal;
    }
  }

  async function runUnguarded(argv: readonly string[]): Promise<number> {
    const g: Globals = { help: false, version: false, json: false, noColor: false };
    let i = 0;
    for (; i < argv.length && argv[i]!.startsWith("-"); i++) {
      const t = argv[i]!;
      if (t === "--help" || t === "-h") g.help = true;
      else if (t === "--version" || t === "-V") g.version = true;
      else if (t === "--json") g.json = true;
      else if (t === "--no-color") g.noColor = true;
      else if (t === "--home" && i + 1 < argv.length) g.home = argv[++i]!;
      else if (t.startsWith("--home=")) g.home = t.slice(7);
      else
        return usage(
          g,
          t === "--home"
            ? "--home needs a value; expected --home <dir>"
            : `unknown flag ${t} before the command; expected one of --help, --version, --json, --home <dir>, --no-color`,
          [brand, "--help"],
        );
    }
    const rest = argv.slice(i);
    if (g.version && rest.length === 0 && !g.help) {
      stdout.write(`${brand} ${options.version ?? "(unknown version)"}\n`);
      return EXIT_CODES.success;
    }
    const root = stateDirOf(brand, env, g.home ?? options.stateDir);
    let table: RouteSource;
    let revisionId: string | undefined;
    const fast = cachedRoutes(root);
    if (fast !== undefined) ({ source: table, revisionId } = fast);
    else
      try {
        const profile = await import("@rukh/profile");
        let cached: Awaited<ReturnType<typeof profile.readActiveRoutes>> = null;
        try {
          cached = await profile.readActiveRoutes(root);
        } catch (e) {
          // A damaged cache is only a cache: rebuild the table from the revision.
          if (!(e instanceof profile.ProfileError && e.code === "invalid_state")) throw e;
        }
        if (cached !== null) {
          table = tableSource(cached.routes);
          revisionId = cached.revisionId;
        } else {
          const state = new profile.StateDirectory(root);
          revisionId = (await state.activeRevisionId()) ?? undefined;
          // A revision published before route caches existed: build the table once.
          table = tableSource(
            revisionId === undefined
              ? { commands: [], groups: [] }
              : (await state.projection(revisionId)).routes,
          );
        }
      } catch (e) {
        return internal(g, `cannot read the profile in ${root}: ${(e as Error).message}`);
      }

    const intrinsic: CliBuiltin[] = [
      {
        path: ["help"],
        summary: "Show help for a group or command",
        usage: "[<command path>...]",
        run: ({ args }) => help(args),
      },
      {
        path: ["completion"],
        summary: "Print a shell completion script",
        usage: "<bash|zsh>",
        description: `Load it with: eval "$(${brand} completion bash)" (or zsh).`,
        run: ({ args }) => {
          const shell = args[0];
          if (args.length !== 1 || !(COMPLETION_SHELLS as readonly string[]).includes(shell!))
            return usage(
              g,
              `completion needs one shell; expected one of ${COMPLETION_SHELLS.join(", ")}`,
              [brand, "completion", "bash"],
            );
          stdout.write(completionScript(shell!, brand));
          return EXIT_CODES.success;
        },
      },
      {
        path: ["__complete"],
        summary: "Completion candidates (used by the completion scripts)",
        hidden: true,
        run: async ({ args }) => {
          const words = args[0] === "--" ? args.slice(1) : args;
          const out = await complete(index, words, root);
          if (out.length > 0) stdout.write(`${out.join("\n")}\n`);
          return EXIT_CODES.success;
        },
      },
    ];
    const index = new RouteIndex(table, [...intrinsic, ...(options.builtins ?? [])]);
    const outStyle: Style = hasColor(env, outTTY, g) ? ANSI : PLAIN;

    async function help(words: readonly string[]): Promise<number> {
      const r = index.resolve(words);
      switch (r.kind) {
        case "root":
          stdout.write(rootHelp(index, brand, options.version, outStyle));
          return EXIT_CODES.success;
        case "group":
          if (r.words < words.length) return unknownCommand(g, index, words.slice(0, r.words + 1));
          stdout.write(groupHelp(index, r.group, brand, outStyle));
          return EXIT_CODES.success;
        case "target": {
          const t = r.entry.target;
          const declared =
            t.kind === "builtin" && t.builtin.inputs !== undefined
              ? (await import("./_declared.js")).declaration(t.builtin)?.route
              : undefined;
          stdout.write(commandHelp(brand, r.entry, outStyle, declared));
          return EXIT_CODES.success;
        }
        case "unknown":
          return unknownCommand(g, index, r.typed);
      }
    }

    const r = index.resolve(rest);
    if (r.kind === "root") {
      if (rest.length > 0 && !g.help)
        return usage(g, `unexpected ${rest[0]} before a command`, [brand, "--help"]);
      return help([]);
    }
    if (r.kind === "unknown") return unknownCommand(g, index, r.typed);
    const after = rest.slice(r.words);
    if (r.kind === "group") {
      if (g.help || wantsHelp(after) || after.length === 0) return help(rest.slice(0, r.words));
      return usage(
        g,
        `"${brand} ${r.group.path.join(" ")}" is a group; expected one of its commands, not ${JSON.stringify(after[0])}`,
        [brand, ...r.group.path, "--help"],
      );
    }
    const entry = r.entry;
    if (entry.target.kind === "builtin") {
      if (g.help || wantsHelp(after)) return help(entry.path);
      const builtin = entry.target.builtin;
      // --json and --no-color after the path too, as for every command (not after a `--`).
      const end = after.indexOf("--");
      const own = end === -1 ? after : after.slice(0, end);
      g.json ||= own.includes("--json");
      g.noColor ||= own.includes("--no-color");
      const args = [
        ...own.filter((a) => a !== "--json" && a !== "--no-color"),
        ...(end === -1 ? [] : after.slice(end)),
      ];
      let inputs: Readonly<Record<string, InputValue>> = {};
      if (builtin.inputs !== undefined) {
        // Declared: the same lexer, decoder and validator as an extension command.
        const { declaration, declaredInputs } = await import("./_declared.js");
        const { command, route } = declaration(builtin)!;
        const lexed = lex(route.cli, after);
        const checked = lexed.ok ? declaredInputs(command, lexed.raw) : undefined;
        const problems = !lexed.ok
          ? [lexed.message]
          : checked?.ok === false
            ? checked.issues.map((issue) => issueMessage(route.cli, issue))
            : [];
        if (problems.length > 0) {
          if (!g.json) return usageLines(g, problems, [brand, ...entry.path, "--help"]);
          stderr.write(
            outputEnvelope(entry.path, {
              error: { code: "usage", message: problems.join("; "), exitCode: EXIT_CODES.usage },
            }),
          );
          return EXIT_CODES.usage;
        }
        if (checked?.ok) inputs = checked.values;
      }
      return withSignals((signal) =>
        Promise.resolve(
          builtin.run({
            args,
            inputs,
            stateDir: root,
            json: g.json,
            env,
            stdout,
            stderr,
            signal,
            path: entry.path,
            usage: (m) =>
              usageLines(g, typeof m === "string" ? [m] : m, [brand, ...entry.path, "--help"]),
          }),
        ),
      );
    }
    const route = entry.target.load();
    const cli = route.cli;
    // A passthrough program owns every word after its path, --help included.
    if (g.help || (!cli.passthrough && wantsHelp(after))) return help(entry.path);
    let raw = new Map<string, string[]>();
    if (!cli.passthrough) {
      const lexed = lex(cli, after);
      if (!lexed.ok) return usage(g, lexed.message, [brand, ...route.path, "--help"]);
      raw = lexed.raw;
      g.json ||= lexed.json;
      g.noColor ||= lexed.noColor;
    }
    let command: CommandSpec;
    let state: StateDirectory;
    let preset: string;
    const [profile, descriptor] = await Promise.all([
      import("@rukh/profile"),
      import("@rukh/descriptor"),
    ]);
    try {
      state = new profile.StateDirectory(root);
      const revision = await state.readRevision(revisionId!);
      preset = options.binding?.preset ?? revision.config.defaultPreset;
      const ext = revision.extensions.find((e) => e.id === route.extension);
      if (ext === undefined) throw new Error(`extension ${route.extension} is not installed`);
      const parsed = descriptor.parseDescriptor(
        await readFile(join(root, "store", ext.digest, profile.DESCRIPTOR_PATH)),
      );
      if (!parsed.ok) throw new Error(`stored package ${ext.digest} has no valid descriptor`);
      const found = parsed.value.commands.find((c) => c.identity === route.identity);
      if (found === undefined) throw new Error(`${route.identity} is not in its package`);
      command = found;
    } catch (e) {
      return internal(g, `cannot load ${route.identity}: ${(e as Error).message}`);
    }
    const decoded = descriptor.decodeCliInputs(command, raw);
    if (!decoded.ok)
      return usageLines(
        g,
        decoded.issues.map((issue) => issueMessage(cli, issue)),
        [brand, ...route.path, "--help"],
      );

    const { createInvocationCore } = await import("@rukh/core");
    let core: Awaited<ReturnType<typeof createInvocationCore>>;
    try {
      core = await createInvocationCore({
        state,
        binding: {
          subject: options.binding?.subject ?? safeUser(),
          actor: options.binding?.actor ?? `${brand}-cli`,
          taskAuthorityRef: options.binding?.taskAuthorityRef ?? "local",
          preset,
        },
        ...(options.commandEnv !== undefined && { env: options.commandEnv }),
      });
    } catch (e) {
      return internal(g, `cannot start the invocation core: ${(e as Error).message}`);
    }
    let signalSeen: "SIGINT" | "SIGTERM" | undefined;
    const code = await withSignals(
      async (signal, seen) => {
        const outcome = await core.invoke({
          command: { identity: route.identity },
          supplied: decoded.value,
          surface: "cli",
          ...(revisionId !== undefined && { revisionId }),
          ownerSignal: signal,
          ...(cli.passthrough && { passthroughArgs: after }),
          ...(options.cwd !== undefined && { cwd: options.cwd }),
        });
        signalSeen = seen();
        await core.close();
        return render(g, route, outcome, signalSeen);
      },
      () => {
        // Second signal: stop waiting. The child's channel closes with this
        // process, which ends a managed command's runtime.
        stderr.write(
          `${errStyle(g).error("error:")} interrupted again; not waiting for the command to stop\n`,
        );
      },
    );
    return code;
  }

  /** Runs `body` with SIGINT/SIGTERM wired to an abort signal; a second signal resolves at once. */
  async function withSignals(
    body: (signal: AbortSignal, seen: () => "SIGINT" | "SIGTERM" | undefined) => Promise<number>,
    onForce?: () => void,
  ): Promise<number> {
    const owner = new AbortController();
    if (options.handleSignals === false) return body(owner.signal, () => undefined);
    let seen: "SIGINT" | "SIGTERM" | undefined;
    let force!: (code: number) => void;
    const forced = new Promise<number>((resolve) => {
      force = resolve;
    });
    const handler = (sig: "SIGINT" | "SIGTERM") => () => {
      if (seen === undefined) {
        seen = sig;
        stderr.write(`cancelling… (${sig === "SIGINT" ? "Ctrl-C" : sig} again to stop at once)\n`);
        owner.abort();
        return;
      }
      onForce?.();
      force(sig === "SIGTERM" ? EXIT_CODES.terminated : EXIT_CODES.interrupted);
    };
    const onInt = handler("SIGINT");
    const onTerm = handler("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    try {
      return await Promise.race([body(owner.signal, () => seen), forced]);
    } finally {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    }
  }

  function errStyle(g: Globals): Style {
    return hasColor(env, errTTY, g) ? ANSI : PLAIN;
  }

  function usageLines(
    g: Globals,
    messages: readonly string[],
    recovery: readonly string[],
  ): number {
    const s = errStyle(g);
    for (const m of messages) stderr.write(`${s.error("error:")} ${m}\n`);
    stderr.write(`See:\n${RUNNABLE}${recovery.join(" ")}\n`);
    return EXIT_CODES.usage;
  }

  function usage(g: Globals, message: string, recovery: readonly string[]): number {
    return usageLines(g, [message], recovery);
  }

  function unknownCommand(g: Globals, index: RouteIndex, typed: readonly string[]): number {
    const near = index.suggest(typed);
    const shown = `${brand} ${typed.join(" ")}`;
    if (near !== undefined)
      return usage(g, `unknown command "${shown}"; did you mean "${brand} ${near.join(" ")}"?`, [
        brand,
        ...near,
        "--help",
      ]);
    return usage(g, `unknown command "${shown}"; expected a command listed by --help`, [
      brand,
      ...typed.slice(0, -1),
      "--help",
    ]);
  }

  function internal(g: Globals, message: string): number {
    stderr.write(`${errStyle(g).error("error:")} ${message}\n`);
    return EXIT_CODES.internal;
  }

  function render(
    g: Globals,
    route: CliRoute,
    o: InvocationOutcome,
    signal: "SIGINT" | "SIGTERM" | undefined,
  ): number {
    if (g.json) {
      const envelope: Record<string, unknown> = {
        invocationId: o.invocationId,
        outcome: o.outcome,
        reason: o.reason,
      };
      if (o.commandResult !== undefined) envelope.commandResult = o.commandResult;
      if (o.effects !== undefined && o.effects.length > 0) envelope.effects = o.effects;
      stdout.write(`${JSON.stringify(envelope, null, outTTY ? 2 : undefined)}\n`);
    } else if (o.commandResult !== undefined) {
      const result = o.commandResult;
      // On a terminal, a result's control characters are shown, not obeyed; a pipe gets its bytes.
      if (result.kind === "text") stdout.write(outTTY ? terminalText(result.text) : result.text);
      else {
        const json = JSON.stringify(result.data, null, outTTY ? 2 : undefined);
        stdout.write(`${outTTY ? terminalJson(json) : json}\n`);
      }
    }
    const code = exitCodeOf(o, signal);
    if (o.outcome === "succeeded") return code;
    const s = errStyle(g);
    if (o.outcome === "rejected" && o.reason === "invalid_input" && o.issues !== undefined) {
      for (const issue of o.issues)
        stderr.write(`${s.error("error:")} ${issueMessage(route.cli, issue)}\n`);
      stderr.write(`See:\n${RUNNABLE}${[brand, ...route.path, "--help"].join(" ")}\n`);
      return code;
    }
    if (o.outcome === "command_failed" && o.reason === "exit_status") return code;
    const what =
      o.outcome === "cancelled"
        ? "cancelled"
        : o.outcome === "command_failed"
          ? "command failed"
          : o.outcome === "rejected"
            ? "not run"
            : "execution failed";
    stderr.write(
      `${s.error("error:")} ${what}${o.message !== undefined ? `: ${terminalText(o.message)}` : ""} (${o.outcome}/${o.reason})\n`,
    );
    if (o.diagnostics.logFile !== undefined && o.outcome === "execution_failed")
      stderr.write(`the command's output is in ${o.diagnostics.logFile}\n`);
    return code;
  }

  return { run };
}

function safeUser(): string {
  try {
    return userInfo().username || "user";
  } catch {
    return "user";
  }
}
