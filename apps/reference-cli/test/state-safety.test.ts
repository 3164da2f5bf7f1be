import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDir, tempDir } from "@rukh/testkit";
import { RUKH_BIN } from "@rukh/testkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorWork } from "./_author.js";
import { NOBODY, nobodyRukh } from "./_nobody.js";
import { sleeperState } from "./_sleeper.js";

// A state directory is trusted the way ssh trusts its files: another user's
// hand in it (ownership, write permission, a link) and no command uses it;
// `doctor` says so and repairs nothing; recovery acts on no record another
// user could have written; `ext link` takes only your own folders. As root,
// attacked by uid 65534, and as uid 65534 itself.
const root = process.getuid?.() === 0;
if (!root)
  console.warn("state-safety suite skipped: changing owners and running as 65534 need root");

// How uid 65534 runs the CLI here, or why it cannot (a reason its cases print).
const asNobody = root ? nobodyRukh() : "running as uid 65534 needs root";
if (typeof asNobody === "string") console.warn(`as uid 65534 cases skipped: ${asNobody}`);
function nobodySpawn(args: string[], env: NodeJS.ProcessEnv) {
  if (typeof asNobody === "string") throw new Error(asNobody);
  const run = asNobody(args);
  // From a folder it may enter: the checkout may be out of its reach.
  return spawnSync(run.command, run.args, { encoding: "utf8", env, cwd: tmpdir() });
}

describe.skipIf(!root)("a state directory another user can change", () => {
  let work: string;
  let home: string;
  const rukh = (args: string[], as: "root" | "nobody" = "root", at = home) => {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", RUKH_HOME: at };
    return as === "root"
      ? spawnSync(RUKH_BIN, args, { encoding: "utf8", env })
      : nobodySpawn(args, env);
  };
  beforeAll(async () => {
    const made = await sleeperState({
      prefix: "rukh-cli-safety-",
      defaultMs: 5,
      maxConcurrency: 4,
    });
    work = made.work;
    home = made.root;
    expect(rukh(["nap"]).status).toBe(0);
  }, 60_000);
  afterAll(() => removeDir(work));

  it("refuses one that group or others can write, naming the path and the fix; doctor FAILs and repairs nothing", () => {
    chmodSync(home, 0o777);
    try {
      for (const args of [["nap"], ["--help"], ["tools", "list"], ["runs", "list"]]) {
        const r = rukh(args);
        expect(r.status, args.join(" ")).toBe(5);
        expect(r.stderr).toContain(`the state directory ${home} is not safe to use`);
        expect(r.stderr).toContain(`${home} is writable by group or others (mode 0777)`);
        expect(r.stderr).toContain(`fix: $ chmod go-w '${home}'`);
      }
      const doctor = rukh(["doctor", "--repair"]);
      expect(doctor.status).toBe(5);
      expect(doctor.stdout).toMatch(
        /^FAIL {2}state directory: the state directory .* is not safe to use/m,
      );
      expect(doctor.stdout).toContain("is writable by group or others (mode 0777)");
      expect(doctor.stdout).toContain("fixed  nothing: the state directory is not safe to act on");
    } finally {
      chmodSync(home, 0o700);
    }
    expect(rukh(["nap"]).status).toBe(0);
  });

  it("refuses one another user owns, and a file in it that another user owns or can write", () => {
    chownSync(home, NOBODY, NOBODY);
    try {
      const r = rukh(["nap"]);
      expect(r.status).toBe(5);
      expect(r.stderr).toContain(`is owned by user ${NOBODY}, not by you (0) or root`);
    } finally {
      chownSync(home, 0, 0);
    }
    const log = join(home, "logs", "diagnostics.log");
    appendFileSync(log, "");
    chmodSync(log, 0o666);
    // Modes inside count once others may enter the directory (an older build made it 0755).
    chmodSync(home, 0o755);
    try {
      const r = rukh(["nap"]);
      expect(r.status).toBe(5);
      expect(r.stderr).toContain("logs/diagnostics.log is writable by group or others (mode 0666)");
    } finally {
      chmodSync(log, 0o600);
      chmodSync(home, 0o700);
    }
  });

  it("refuses a file with a second name elsewhere (a hard link) and an entry mounted over from elsewhere; doctor FAILs", () => {
    // A 0666 `active` hard-linked in from a world-reachable folder: the
    // 0700 directory keeps no one out of the other name.
    const open = join(work, "open");
    mkdirSync(open, { recursive: true, mode: 0o777 });
    chmodSync(open, 0o777);
    const active = join(home, "active");
    const kept = readFileSync(active);
    const other = join(open, "active");
    writeFileSync(other, kept, { mode: 0o666 });
    chmodSync(other, 0o666);
    renameSync(active, join(work, "active.saved"));
    linkSync(other, active);
    try {
      for (const args of [["nap"], ["tools", "list"]]) {
        const r = rukh(args);
        expect(r.status, args.join(" ")).toBe(5);
        expect(r.stderr).toContain(
          "active has 2 names (hard links): whoever can reach the other one can change it",
        );
        expect(r.stderr).toContain(
          `fix: $ cp '${active}' '${active}.own' && mv '${active}.own' '${active}'`,
        );
      }
      const doctor = rukh(["doctor"]);
      expect(doctor.status).toBe(5);
      expect(doctor.stdout).toMatch(/^FAIL {2}state directory: .*not safe to use/m);
      expect(doctor.stdout).toContain("active has 2 names (hard links)");
      // The fix it names works.
      const fix = spawnSync("sh", [
        "-c",
        `cp '${active}' '${active}.own' && mv '${active}.own' '${active}'`,
      ]);
      expect(fix.status).toBe(0);
      expect(statSync(active).nlink).toBe(1);
      expect(rukh(["nap"]).status).toBe(0);
    } finally {
      renameSync(join(work, "active.saved"), active);
    }
    // An entry bind-mounted from elsewhere is the same kind of second door.
    const elsewhere = join(open, "logs");
    mkdirSync(elsewhere, { recursive: true });
    const logs = join(home, "logs");
    const bound = spawnSync("mount", ["--bind", elsewhere, logs], { encoding: "utf8" });
    if (bound.status !== 0) {
      console.warn(`bind-mount case skipped: mount --bind is refused here: ${bound.stderr.trim()}`);
      return;
    }
    try {
      const r = rukh(["nap"]);
      expect(r.status).toBe(5);
      expect(r.stderr).toContain(
        "logs is a mount point: what is mounted there comes from elsewhere",
      );
      expect(r.stderr).toContain(`fix: $ umount '${logs}'`);
      const doctor = rukh(["doctor"]);
      expect(doctor.status).toBe(5);
      expect(doctor.stdout).toContain("logs is a mount point");
    } finally {
      spawnSync("umount", [logs]);
    }
    expect(rukh(["nap"]).status).toBe(0);
  });

  it("follows no link planted in it: the diagnostics log, tmp/ and the docs cache", () => {
    const elsewhere = join(work, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    const victim = join(elsewhere, "victim.txt");
    writeFileSync(victim, "keep\n");
    const old = new Date(Date.now() - 3 * 86_400_000);
    utimesSync(victim, old, old);
    // The log, a link to the victim: the call is refused and nothing is appended there.
    const log = join(home, "logs", "diagnostics.log");
    renameSync(log, `${log}.real`);
    symlinkSync(victim, log);
    try {
      const r = rukh(["nap"]);
      expect(r.status).toBe(5);
      expect(r.stderr).toContain("logs/diagnostics.log is a symbolic link");
      expect(r.stderr).toContain(`fix: $ rm '${log}'`);
    } finally {
      spawnSync("rm", [log]);
      renameSync(`${log}.real`, log);
    }
    // tmp/, a link to another directory: doctor --repair removes nothing there.
    const tmp = join(home, "tmp");
    removeDir(tmp);
    symlinkSync(elsewhere, tmp);
    try {
      const doctor = rukh(["doctor", "--repair"]);
      expect(doctor.status).toBe(5);
      expect(doctor.stdout).toMatch(
        /^FAIL {2}state directory: the state directory .* is not safe to use/m,
      );
      expect(doctor.stdout).toContain(
        "tmp is a symbolic link; nothing in a state directory is one",
      );
    } finally {
      spawnSync("rm", [tmp]);
      mkdirSync(tmp);
    }
    expect(readFileSync(victim, "utf8")).toBe("keep\n");
    // A docs cache entry another user wrote: never printed as the catalog.
    mkdirSync(join(home, "cache", "docs"), { recursive: true });
    const forged = join(home, "cache", "docs", "forged.md");
    writeFileSync(forged, "# forged\n");
    chownSync(forged, NOBODY, NOBODY);
    try {
      const docs = rukh(["docs"]);
      expect(docs.status).toBe(5);
      expect(docs.stdout).toBe("");
      expect(docs.stderr).toContain(`cache/docs/forged.md is owned by user ${NOBODY}`);
    } finally {
      spawnSync("rm", [forged]);
    }
    expect(rukh(["nap"]).status).toBe(0);
  });

  it("kills nothing a forged live segment names, and sets it aside", async () => {
    const victim = spawn("sleep", ["60"], { stdio: "ignore" });
    const pid = victim.pid!;
    const startTime = readFileSync(`/proc/${pid}/stat`, "utf8")
      .slice(readFileSync(`/proc/${pid}/stat`, "utf8").lastIndexOf(")") + 2)
      .split(" ")[19]!;
    const live = join(home, "journal", "live");
    mkdirSync(live, { recursive: true });
    const id = "00000000-0000-4000-8000-000000000001";
    const records = [
      {
        actor: "x",
        at: new Date().toISOString(),
        command: "fx.sleep/nap",
        digest: "sha256:0",
        host: "forged",
        invocationId: id,
        pid: 1,
        preset: "default",
        revisionId: "0",
        subject: "x",
        surface: "cli",
        taskAuthorityRef: "x",
        type: "start",
      },
      { host: "forged", invocationId: id, pgid: pid, pid, startTime, type: "process" },
    ];
    const file = join(live, "forged.000000.jsonl");
    writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`, { mode: 0o600 });
    chownSync(file, NOBODY, NOBODY);
    try {
      // Every command refuses while it is there, naming it.
      const refused = rukh(["nap"]);
      expect(refused.status).toBe(5);
      expect(refused.stderr).toContain(
        `journal/live/forged.000000.jsonl is owned by user ${NOBODY}`,
      );
      // doctor --repair acts on nothing either.
      expect(rukh(["doctor", "--repair"]).status).toBe(5);
      expect(existsSync(`/proc/${pid}`)).toBe(true);
      // Made group-writable by its owner's mistake, it is ours but not provably so: set aside, no kill.
      chownSync(file, 0, 0);
      chmodSync(file, 0o666);
      const { repairJournal } = await import("@rukh/core");
      const repaired = await repairJournal(home);
      expect(repaired.finalized).toEqual([]);
      expect(existsSync(file)).toBe(false);
      expect(
        readdirSync(join(home, "journal", "quarantine")).some((n) =>
          n.endsWith("forged.000000.jsonl"),
        ),
      ).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
      expect(existsSync(`/proc/${pid}`)).toBe(true);
    } finally {
      victim.kill("SIGKILL");
      removeDir(join(home, "journal", "quarantine"));
    }
  });

  it.skipIf(typeof asNobody === "string")(
    "as uid 65534: refuses its own state directory left open to others, and uses it once closed",
    () => {
      const theirs = join(tempDir("rukh-cli-safety-nobody-"), "home");
      chmodSync(join(theirs, ".."), 0o755);
      cpSync(home, theirs, { recursive: true });
      spawnSync("chown", ["-R", `${NOBODY}:${NOBODY}`, theirs]);
      try {
        chmodSync(theirs, 0o777);
        const open = rukh(["nap"], "nobody", theirs);
        expect(open.status).toBe(5);
        expect(open.stderr).toContain("is writable by group or others (mode 0777)");
        chmodSync(theirs, 0o700);
        const ok = rukh(["nap"], "nobody", theirs);
        expect(ok.status, ok.stderr).toBe(0);
        expect(ok.stdout.trim()).toBe("slept");
      } finally {
        removeDir(join(theirs, ".."));
      }
    },
  );
});

describe("a state directory the product makes", () => {
  const { work, home, env } = authorWork("rukh-cli-safety-umask-");
  it("is writable by no one else whatever the umask (002 here), so the check passes", () => {
    const sh = (cmd: string) =>
      spawnSync("sh", ["-c", `umask 002; ${cmd}`], { encoding: "utf8", cwd: work, env });
    expect(sh(`"${RUKH_BIN}" ext init pkg --id jane.pkg`).status).toBe(0);
    const linked = sh(`"${RUKH_BIN}" ext link pkg`);
    expect(linked.status, linked.stderr).toBe(0);
    // The CLI adds 022 to the umask: nothing it made is writable by group or others.
    expect(statSync(home).mode & 0o022).toBe(0);
    expect(statSync(join(home, "active")).mode & 0o022).toBe(0);
    const ran = sh(`"${RUKH_BIN}" pkg hello Ada`);
    expect([ran.status, ran.stdout]).toEqual([0, "Hello, Ada!\n"]);
  });
});

describe.skipIf(!root)("ext link of another user's folder", () => {
  const { work, rukh } = authorWork("rukh-cli-safety-link-");
  const init = (name: string, id: string) =>
    expect(rukh("ext", "init", name, "--id", id).status).toBe(0);

  it("refuses a folder another user owns, or that group or others can write, or under such a parent", () => {
    init("theirs", "jane.theirs");
    spawnSync("chown", ["-R", `${NOBODY}:${NOBODY}`, join(work, "theirs")]);
    const owned = rukh("ext", "link", "theirs");
    expect(owned.status).not.toBe(0);
    expect(owned.stderr).toContain(`${join(work, "theirs")} is owned by user ${NOBODY}`);
    expect(owned.stderr).toContain("only your own folders are linked");

    init("open", "jane.open");
    chmodSync(join(work, "open"), 0o777);
    expect(rukh("ext", "link", "open").stderr).toContain(
      "is writable by group or others (mode 0777)",
    );

    mkdirSync(join(work, "shared"));
    chmodSync(join(work, "shared"), 0o777);
    init("shared/pkg", "jane.shared");
    const under = rukh("ext", "link", "shared/pkg");
    expect(under.status).not.toBe(0);
    expect(under.stderr).toContain(`${join(work, "shared")} is writable by group or others`);

    // A file in it another user owns (they could edit it later).
    init("mixed", "jane.mixed");
    chownSync(join(work, "mixed", "src", "handlers.mjs"), NOBODY, NOBODY);
    expect(rukh("ext", "link", "mixed").stderr).toContain(
      `package entry "src/handlers.mjs" is owned by user ${NOBODY}`,
    );
    expect(JSON.parse(rukh("--json", "ext", "list").stdout).result.extensions ?? []).toEqual([]);
  });

  it("does not link again a folder that became writable by others: its last copy runs", () => {
    init("mine", "jane.mine");
    expect(rukh("ext", "link", "mine").status).toBe(0);
    expect(rukh("mine", "hello", "Ada").stdout).toBe("Hello, Ada!\n");
    const handlers = join(work, "mine", "src", "handlers.mjs");
    writeFileSync(handlers, readFileSync(handlers, "utf8").replace("Hello, ", "Owned, "));
    chmodSync(join(work, "mine"), 0o777);
    const ran = rukh("mine", "hello", "Ada");
    expect(ran.stdout).toBe("Hello, Ada!\n");
    expect(ran.stderr).toContain("is not linked again, its last copy runs");
    expect(ran.stderr).toContain("is writable by group or others (mode 0777)");
  });
});
