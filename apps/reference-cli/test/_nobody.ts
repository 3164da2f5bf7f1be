// The built CLI run as uid 65534, the unprivileged user the attack and
// replica suites act as. A checkout inside a folder only its owner may
// enter (a root home is 0700) is out of that user's reach; the CLI then runs
// in a mount namespace where that folder is reopened (see probe). A reason
// string when neither works here.

import { spawnSync } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RUKH_BIN } from "@rukh/testkit/cli";

/** The unprivileged user. */
export const NOBODY = 65534;

const SETPRIV = ["--reuid=65534", "--regid=65534", "--clear-groups"];
const CHECKOUT = fileURLToPath(new URL("../../..", import.meta.url));

/** How to run `rukh args…` as uid 65534: a command and its arguments. */
export type NobodyRukh = (args: readonly string[]) => { command: string; args: string[] };

let cached: NobodyRukh | string | undefined;

/** The way to run the CLI as uid {@link NOBODY} here, or why there is none (probed once). */
export function nobodyRukh(): NobodyRukh | string {
  cached ??= probe();
  return cached;
}

function works(run: NobodyRukh): string | undefined {
  const { command, args } = run(["--version"]);
  const r = spawnSync(command, args, { encoding: "utf8" });
  return r.status === 0 ? undefined : (r.stderr || String(r.error)).trim().slice(0, 300);
}

function probe(): NobodyRukh | string {
  if (process.getuid?.() !== 0) return `only root can run the CLI as uid ${NOBODY}`;
  const direct: NobodyRukh = (args) => ({
    command: "setpriv",
    args: [...SETPRIV, "--", RUKH_BIN, ...args],
  });
  const why = works(direct);
  if (why === undefined) return direct;
  // The checkout is out of reach: in a mount namespace of its own, the
  // first folder on its path that others may not enter is covered by an
  // empty one they may, and the checkout is mounted back at its own path, so
  // that every path naming it (a linked package, a stored runtime) resolves.
  const closed = closedAncestor(CHECKOUT);
  if (closed === undefined) return `uid ${NOBODY} cannot run the built CLI here: ${why}`;
  const hold = mkdtempSync(join(tmpdir(), "rukh-checkout-hold-"));
  const reopened: NobodyRukh = (args) => ({
    command: "unshare",
    args: [
      "--mount",
      "--propagation",
      "private",
      "--",
      "sh",
      "-c",
      'mount --bind "$1" "$2" && mount -t tmpfs -o mode=0755 rukh-reopened "$3" && mkdir -p "$1" && mount --bind "$2" "$1" || exit 125; b="$4"; shift 4; exec setpriv ' +
        `${SETPRIV.join(" ")} -- "$b" "$@"`,
      "sh",
      CHECKOUT,
      hold,
      closed,
      RUKH_BIN,
      ...args,
    ],
  });
  const still = works(reopened);
  if (still === undefined) return reopened;
  return `uid ${NOBODY} cannot run the built CLI here: ${why}; nor with ${closed} reopened: ${still}`;
}

/** The first folder on the way to `path` that others may not enter, if any. */
function closedAncestor(path: string): string | undefined {
  const parts = path.split("/").filter((p) => p !== "");
  for (let i = 1; i <= parts.length; i++) {
    const folder = `/${parts.slice(0, i).join("/")}`;
    if ((statSync(folder).mode & 0o001) === 0) return folder;
  }
  return undefined;
}
