import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { spawnCli } from "@rukh/testkit/cli";
import { expect, it } from "vitest";
import { useSleeperCli } from "../_sleeper.js";

const { at, env, rukh } = useSleeperCli("rukh-cli-doctor-");

/** Starts a long call and kill -9s its host once the call's start is journaled. */
async function loseAHost(): Promise<void> {
  const host = spawnCli({ args: ["nap", "--wait-ms", "60000"], env: env() }, "ignore");
  const live = join(at.root, "journal", "live");
  // Lost only once its call is journaled: its start and its process records
  // are in the live segment (under load a segment can exist well before them).
  const journaled = () =>
    existsSync(live) &&
    readdirSync(live).some((f) => readFileSync(join(live, f), "utf8").includes('"type":"process"'));
  for (let i = 0; i < 1_200 && !journaled(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(journaled()).toBe(true);
  host.kill("SIGKILL");
  await new Promise((r) => host.once("exit", r));
}

it("doctor notes a lost host and temporary debris; --repair finishes the host, removes only the debris of dead writers, and says what it did", async () => {
  await loseAHost();
  const tmp = join(at.root, "tmp");
  mkdirSync(tmp, { recursive: true });
  const old = new Date(Date.now() - 3_600_000);
  // A crashed publisher's half-written revision and its half-stored package.
  writeFileSync(join(tmp, "active.999999999.a1b2c3d4e5f6"), "0123");
  mkdirSync(join(tmp, "store-0123456789abcdef.999999999.a1b2c3d4e5f6", "bin"), { recursive: true });
  writeFileSync(
    join(tmp, "store-0123456789abcdef.999999999.a1b2c3d4e5f6", "bin", "x.mjs"),
    "12345678",
  );
  // A writer that is alive (this test) keeps its entry, however old.
  writeFileSync(join(tmp, `active.${process.pid}.0a0b0c0d0e0f`), "live");
  for (const n of readdirSync(tmp)) utimesSync(join(tmp, n), old, old);

  const before = rukh("doctor");
  expect(before.status).toBe(0);
  expect(before.stdout).toMatch(/note {2}journal: .*1 host gone with calls not yet finalized/);
  expect(before.stdout).toContain(
    "note  temporary files: 2 files left by writers that are gone (12 bytes)",
  );
  expect(before.stdout).toContain("ok    publication lock: free");

  const repaired = rukh("doctor", "--repair");
  expect(repaired.status).toBe(0);
  const fixed = repaired.stdout.match(
    /^fixed {2}journal: finalized 1 call of lost hosts as execution_failed\/host_lost \(([0-9a-f-]{36})\)$/m,
  );
  expect(fixed).not.toBeNull();
  expect(repaired.stdout).toContain(
    "fixed  temporary files: removed 2 files left by writers that are gone (12 bytes)",
  );
  expect(repaired.stdout).toContain("ok    temporary files: none left behind");
  expect(readdirSync(tmp)).toEqual([`active.${process.pid}.0a0b0c0d0e0f`]);
  expect(rukh("runs", "show", fixed![1]!).stdout).toContain("reason: host_lost");

  const again = JSON.parse(rukh("--json", "doctor", "--repair").stdout).result;
  expect(again.repaired).toEqual(["nothing needed repair"]);
  expect(again.checks.find((c: { name: string }) => c.name === "journal").note).toBeUndefined();
});

it("doctor --repair leaves a running host alone", async () => {
  const host = spawnCli({ args: ["nap", "--wait-ms", "3000"], env: env() }, "ignore");
  const exited = new Promise<number | null>((r) => host.once("exit", r));
  await new Promise((r) => setTimeout(r, 700));
  const r = rukh("doctor", "--repair");
  expect(r.stdout).toContain("fixed  nothing needed repair");
  expect(await exited).toBe(0);
  const [last] = JSON.parse(rukh("--json", "runs", "list", "--limit", "1").stdout).result.runs;
  expect(last).toMatchObject({ outcome: "succeeded", reason: "completed" });
});

it("doctor names a modified stored package and its repair; installing the same package restores it", async () => {
  const { StateDirectory } = await import("@rukh/profile");
  const state = new StateDirectory(at.root);
  const rev = await state.readRevision((await state.activeRevisionId())!);
  const digest = rev.extensions[0]!.digest;
  const program = join(at.root, "store", digest, "bin", "nap.mjs");
  chmodSync(program, 0o644);
  appendFileSync(program, "// edited\n");
  const r = rukh("doctor");
  expect(r.status).toBe(5);
  expect(r.stdout).toMatch(
    /^FAIL {2}installed packages: fx\.sleep@1\.0\.0 \(stored package [0-9a-f]{64}: "bin\/nap\.mjs" has been modified\): install its package again to restore it, or remove it$/m,
  );
  const call = rukh("nap");
  expect(call.stderr).toMatch(
    /an installed package has been modified since it was installed; nothing was run \(fx\.sleep@1\.0\.0: stored package [0-9a-f]{64}: "bin\/nap\.mjs" has been modified; install its package again to restore it, or remove fx\.sleep\)/,
  );
  expect(call.status).toBe(5);
  const pkg = readdirSync(at.work).find((n) => n.startsWith("pkg-"))!;
  expect(rukh("ext", "install", join(at.work, pkg)).status).toBe(0);
  expect(rukh("doctor").stdout).toMatch(/^ok {4}installed packages: every file hashed/m);
  expect(rukh("nap").status).toBe(0);
});

it("a stored program edited and its record re-stamped (code running as the user) runs on the next call, as documented, and doctor still names it", async () => {
  const { StateDirectory } = await import("@rukh/profile");
  const state = new StateDirectory(at.root);
  const digest = (await state.readRevision((await state.activeRevisionId())!)).extensions[0]!
    .digest;
  const program = join(at.root, "store", digest, "bin", "nap.mjs");
  const record = join(at.root, "cache", "store", `${digest}.json`);
  expect(rukh("nap").status).toBe(0);
  const original = readFileSync(program, "utf8");
  chmodSync(program, 0o644);
  writeFileSync(
    program,
    original.replace('return textResult("slept")', 'return textResult("edited")'),
  );
  // What malware running as the user can do: stamp the record with the edited file's stat.
  const st = statSync(program, { bigint: true });
  const r = JSON.parse(readFileSync(record, "utf8"));
  r.files["bin/nap.mjs"] = [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].map(String);
  writeFileSync(record, JSON.stringify(r));
  const ran = rukh("nap");
  expect([ran.status, ran.stdout.trim()]).toEqual([0, "edited"]);
  const doctor = rukh("doctor");
  expect(doctor.status).toBe(5);
  expect(doctor.stdout).toMatch(
    /^FAIL {2}installed packages: fx\.sleep@1\.0\.0 \(stored package [0-9a-f]{64}: "bin\/nap\.mjs" has been modified\)/m,
  );
  const pkg = readdirSync(at.work).find((n) => n.startsWith("pkg-"))!;
  expect(rukh("ext", "install", join(at.work, pkg)).status).toBe(0);
  expect(rukh("nap").stdout.trim()).toBe("slept");
});

it("takes the verified table when a command's route in its package's part fails its digest: the typed path runs its own command", async () => {
  const { StateDirectory } = await import("@rukh/profile");
  const home = new StateDirectory(at.root);
  const id = (await home.activeRevisionId())!;
  const nap = (await home.readRevision(id)).extensions.find((e) => e.id === "fx.sleep")!;
  // The route cache (which the revision's digest covers) is intact; the
  // command's route in its package's part is not.
  const file = join(at.root, "revisions", "parts", `${nap.digest}.json`);
  const original = readFileSync(file, "utf8");
  chmodSync(file, 0o644);
  writeFileSync(file, original.replaceAll('"path":["nap"]', '"path":["nop"]'));
  expect(rukh("nap").status).toBe(0);
  // Help and completion of the command take the verified table too.
  const help = rukh("help", "nap");
  expect([help.status, help.stdout]).toEqual([0, expect.stringContaining("rukh nap")]);
  const complete = rukh("__complete", "--", "nap", "--");
  expect([complete.status, complete.stdout]).toEqual([0, expect.stringContaining("--wait-ms")]);
  expect(rukh("doctor").stdout).toMatch(/^FAIL {2}route cache:/m);
  expect(rukh("doctor", "--repair").status).toBe(0);
  expect(readFileSync(file, "utf8")).toBe(original);
});

it("ignores an edited route cache (its digest is in the revision), so a path never runs another command; doctor names it and --repair rewrites it", async () => {
  const { StateDirectory } = await import("@rukh/profile");
  const id = (await new StateDirectory(at.root).activeRevisionId())!;
  const file = join(at.root, "revisions", `${id}.routes.json`);
  const original = readFileSync(file, "utf8");
  // Point the typed path "nap" at a command that does not declare it.
  chmodSync(file, 0o644);
  writeFileSync(file, original.replaceAll('"path":["nap"]', '"path":["nop"]'));
  // The cache no longer matches the digest its revision records: the CLI reads the descriptors.
  const r = rukh("nop");
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('unknown command "rukh nop"');
  expect(rukh("nap").status).toBe(0);
  expect(rukh("doctor").stdout).toMatch(
    /^FAIL {2}route cache: the CLI's index of command paths or the revision's catalog differs/m,
  );
  expect(rukh("doctor", "--repair").stdout).toContain(
    "fixed  route cache: rewrote the CLI's index of command paths and the revision's catalog from the verified descriptors",
  );
  expect(readFileSync(file, "utf8")).toBe(original);
  expect(rukh("nap").status).toBe(0);
});
