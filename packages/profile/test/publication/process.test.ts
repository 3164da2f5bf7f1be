import { type ChildProcess, execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { readActiveRoutes, StateDirectory } from "../../src/index.js";
import { descriptor, makePackage, ownerConfig, tempDir } from "../_helpers.js";

const script = fileURLToPath(new URL("../fixtures/publisher.mjs", import.meta.url));
const run = promisify(execFile);

async function seeded(): Promise<StateDirectory> {
  const home = new StateDirectory(tempDir("rukh-proc-"));
  await home.setConfig(ownerConfig() as never);
  await home.install(
    await makePackage(tempDir(), descriptor("acme.files", "acme", [{ id: "a" }, { id: "b" }])),
  );
  return home;
}

// Resolves once the child has printed `line` (its stdout is line-oriented).
function waitFor(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      if (buffered.split("\n").includes(line)) {
        child.stdout!.off("data", onData);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`publisher exited early with ${code}`)));
  });
}

describe("real processes", () => {
  it("SIGKILL at random points always leaves active naming a complete, valid revision", async () => {
    const home = await seeded();
    const seen = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const child = spawn(process.execPath, [script, "loop", home.root], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      // Wait for one commit so every round makes progress whatever the
      // machine's load, then kill at a random point of the following ones.
      await waitFor(child, "committed");
      await new Promise((r) => setTimeout(r, Math.random() * 40));
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
      const fresh = new StateDirectory(home.root);
      const id = await fresh.activeRevisionId();
      expect(id).not.toBeNull();
      const rev = await fresh.readRevision(id!);
      expect(rev.format).toBe("rukh.profile/1");
      const projection = await fresh.projection(id!);
      expect(projection.revisionId).toBe(id);
      // The route cache is complete whenever `active` names its revision.
      expect((await readActiveRoutes(home.root))?.routes).toEqual(
        JSON.parse(JSON.stringify(projection.routes)),
      );
      seen.add(id!);
    }
    // The children made progress between kills, so commits really were interrupted.
    expect(seen.size).toBeGreaterThan(10);
  }, 180_000);

  it("two publishers from the same base: exactly one wins, the other gets conflict", async () => {
    const home = await seeded();
    const base = (await home.activeRevisionId())!;
    const env = { ...process.env, START_AT: String(Date.now() + 400) };
    const results = await Promise.all(
      ["one", "two"].map(async (tag) =>
        JSON.parse(
          (await run(process.execPath, [script, "once", home.root, base, tag], { env })).stdout,
        ),
      ),
    );
    const winners = results.filter((r) => r.ok !== undefined);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.code === "conflict")).toHaveLength(1);
    expect(await new StateDirectory(home.root).activeRevisionId()).toBe(winners[0].ok);
  }, 20_000);

  it("publishers retrying on conflict lose no update", async () => {
    const home = await seeded();
    const tags = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"];
    await Promise.all(tags.map((tag) => run(process.execPath, [script, "retry", home.root, tag])));
    const fresh = new StateDirectory(home.root);
    const rev = await fresh.readRevision((await fresh.activeRevisionId())!);
    expect(Object.keys(rev.config.presets)).toEqual(expect.arrayContaining(tags));
    expect(rev.sequence).toBe(2 + tags.length);
  }, 30_000);
});
