// `doctor`: what the state directory, trust, packages, journal and this
// machine's confinement look like, in the words a call would meet them.

import { accessSync, constants, statfsSync } from "node:fs";
import type { CliBuiltin } from "@rukh/cli";
import type { StateDirectory } from "@rukh/profile";
import { type AdminBody, OK, parse, print, STATE } from "./_kit.js";

/** The `doctor` command. */
export function doctorBuiltin(guarded: (fn: AdminBody) => CliBuiltin["run"]): CliBuiltin {
  return {
    path: ["doctor"],
    summary: "Check the state directory, trust, installed packages and enforcement support",
    run: guarded(async (ctx, home) => {
      parse(ctx.args);
      const checks = await doctor(home);
      print(ctx, checks.map((c) => `${mark(c)}  ${c.name}: ${c.detail}`).join("\n"), checks);
      return checks.every((c) => c.ok) ? OK : STATE;
    }),
  };
}

// Unavailable confinement is a note, not a failure: strict calls are then rejected, never run unconfined.
function mark(c: { ok: boolean; detail: string }): string {
  if (!c.ok) return "FAIL";
  return c.detail.startsWith("unavailable") ? "note" : "ok  ";
}

async function doctor(
  home: StateDirectory,
): Promise<{ name: string; ok: boolean; detail: string }[]> {
  const checks: { name: string; ok: boolean; detail: string }[] = [];
  const check = async (name: string, fn: () => Promise<string> | string) => {
    try {
      checks.push({ name, ok: true, detail: await fn() });
    } catch (e) {
      checks.push({ name, ok: false, detail: (e as Error).message });
    }
  };
  await check("state directory", () => {
    accessSync(home.root, constants.W_OK);
    return home.root;
  });
  await check("active profile", async () => {
    const id = await home.activeRevisionId();
    if (id === null) throw new Error("nothing published yet (run `trust add` and `ext install`)");
    const rev = await home.readRevision(id);
    return `${id.slice(0, 12)}, ${rev.extensions.length} extensions, ${rev.config.trustedPublishers.length} trusted publishers`;
  });
  await check("installed packages", async () => {
    if ((await home.activeRevisionId()) === null) return "none";
    const projection = await home.projection();
    return `verified against their digests; ${projection.routes.commands.length} commands, ${projection.tools.length} MCP tools`;
  });
  await check("free space", () => {
    const { bavail, bsize } = statfsSync(home.root);
    const free = bavail * bsize;
    // Below this, journal records and diagnostics start to be refused.
    if (free < 16 * 1024 * 1024)
      throw new Error(
        `only ${free} bytes free under ${home.root}: calls will end journal_failed and diagnostics will be dropped`,
      );
    return `${Math.floor(free / 1024 / 1024)} MiB free`;
  });
  const { describeJournal, describeConfinement } = await import("@rukh/core");
  await check("journal", async () => {
    const j = await describeJournal(home.root);
    const history = `${j.archiveSegments} archive segments (${Math.ceil(j.archiveBytes / 1024)} KiB), ${j.liveSegments} live`;
    if (j.quarantined.length > 0)
      throw new Error(
        `${history}; ${j.quarantined.length} damaged segments were set aside in ${j.quarantineDir} (${j.quarantined.join(", ")}): their readable records were recovered; keep or delete them`,
      );
    return history;
  });
  // The same detection the core admits calls with: what doctor says is what a call gets.
  const active = await home.activeRevisionId().catch(() => null);
  const configured =
    active === null ? undefined : (await home.readRevision(active)).config.sandbox?.program;
  const c = await describeConfinement(configured);
  // Unavailable confinement is not a fault: strict calls are then rejected, never run unconfined.
  await check("strict profile", () =>
    c.strict.available
      ? `available: ${c.strict.detail}`
      : `unavailable, strict commands will be rejected: ${c.strict.reason}`,
  );
  await check(
    "host-trusted process trees",
    () => `${c.hostTrustedTree.mechanism}: ${c.hostTrustedTree.detail}`,
  );
  await check("resource limits", () =>
    c.resourceLimits.enforced
      ? c.resourceLimits.detail
      : `not enforced for host-trusted commands: ${c.resourceLimits.reason}`,
  );
  return checks;
}
