import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { fileURLToPath } from "node:url";
import { type BuiltinContext, createCli } from "@rukh/cli";
import { adminBuiltins } from "./admin/index.js";

/** The brand of this CLI; a scaffolded CLI changes it (and nothing else here). */
export const BRAND = "rukh";

const version: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;
const executable = fileURLToPath(new URL("../bin/rukh", import.meta.url));

async function serveMcp(ctx: BuiltinContext, preset: string | undefined): Promise<number> {
  // Only serving loads the MCP host and the profile: every other path starts without them.
  const [{ serveStdio }, { presetNamed, StateDirectory }] = await Promise.all([
    import("@rukh/mcp"),
    import("@rukh/profile"),
  ]);
  const state = new StateDirectory(ctx.stateDir);
  // Agents get the confined preset unless the owner names another.
  const name = preset ?? "agent";
  const active = await state.activeRevisionId();
  if (active === null)
    // A client configured before the first install gets a live server: an
    // empty list now, and `list_changed` when tools are published.
    ctx.stderr.write(`${BRAND} mcp: nothing is installed yet; serving an empty tool list\n`);
  else {
    const config = (await state.readRevision(active)).config;
    if (presetNamed(config, name) === undefined) {
      ctx.stderr.write(
        `${BRAND}: no preset ${JSON.stringify(name)}; expected one of ${Object.keys(config.presets).join(", ")}\n`,
      );
      return 2;
    }
  }
  // What the host reports (its close reason among it) goes to stderr, one line each.
  const logger = {
    log(level: string, message: string, data?: Record<string, unknown>) {
      const detail = data === undefined ? "" : ` ${JSON.stringify(data)}`;
      ctx.stderr.write(`${BRAND} mcp: ${level}: ${message}${detail}\n`);
    },
  };
  // The launch binding is fixed here, once, from the owner's side: nothing a
  // client sends can change it.
  const host = await serveStdio({
    logger,
    state,
    binding: {
      subject: userInfo().username,
      actor: `${BRAND}-mcp`,
      taskAuthorityRef: "local",
      preset: name,
    },
    serverInfo: { name: BRAND, version },
  });
  ctx.signal.addEventListener("abort", () => void host.close(), { once: true });
  const why = await host.closed;
  ctx.stderr.write(`${BRAND} mcp: closed (${why})\n`);
  return why === "eof" || why === "closed" ? 0 : 5;
}

/**
 * Entry point of the `rukh` reference CLI; returns the process exit code.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: readonly string[]): Promise<number> {
  const cli = createCli({
    brand: BRAND,
    version,
    builtins: adminBuiltins({ brand: BRAND, executable, serveMcp }),
  });
  return cli.run(argv);
}
