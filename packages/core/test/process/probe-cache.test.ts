import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDir } from "@rukh/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { probeKey, readProbe, writeProbe } from "../../src/process/_probe-cache.js";

const work = mkdtempSync(join(tmpdir(), "rukh-probe-"));
afterAll(() => removeDir(work));

describe("the confinement probe's record", () => {
  const program = join(work, "bwrap");
  writeFileSync(program, "#!/bin/sh\n");
  const file = join(work, "cache", "confinement.json");
  const answers = { strictError: null, hostError: "no pid namespace", nodeError: null };

  it("is kept under a key of what the answers depend on, written through tmp/ and renamed", () => {
    const key = probeKey([program, null]);
    writeProbe(file, join(work, "tmp"), key, answers);
    expect(readProbe(file, key)).toEqual(answers);
    expect(readdirSync(join(work, "tmp"))).toEqual([]);
  });

  it("is not used once a program it probed changes, or after an hour", () => {
    const key = probeKey([program, null]);
    writeProbe(file, join(work, "tmp"), key, answers);
    expect(readProbe(file, key, Date.now() + 3_600_001)).toBeUndefined();
    utimesSync(program, new Date(), new Date(Date.now() - 10_000));
    const changed = probeKey([program, null]);
    expect(changed).not.toBe(key);
    expect(readProbe(file, changed)).toBeUndefined();
    expect(probeKey([program, "/usr/bin/prlimit"])).not.toBe(changed);
  });

  it("is ignored when it is anything but a record of this format", () => {
    const key = probeKey([program]);
    for (const text of [
      "not json",
      JSON.stringify({
        format: "rukh.confinement-probe/3",
        key,
        at: Date.now(),
        strictError: 1,
        hostError: null,
        nodeError: null,
      }),
      // A record of the format whose strict probe never opened /dev/null: it says nothing of devices.
      JSON.stringify({
        format: "rukh.confinement-probe/2",
        key,
        at: Date.now(),
        strictError: null,
        hostError: null,
        nodeError: null,
      }),
      // A record of the format before the Node probe: it says nothing of Node.
      JSON.stringify({
        format: "rukh.confinement-probe/1",
        key,
        at: Date.now(),
        strictError: null,
        hostError: null,
      }),
      JSON.stringify({
        format: "rukh.confinement-probe/3",
        key,
        at: Date.now(),
        strictError: null,
        hostError: null,
      }),
      JSON.stringify({ format: "other", key, at: Date.now(), strictError: null, hostError: null }),
      JSON.stringify({
        format: "rukh.confinement-probe/3",
        key,
        at: Date.now() + 60_000,
        strictError: null,
        hostError: null,
        nodeError: null,
      }),
      "x".repeat(70_000),
    ]) {
      writeFileSync(file, text);
      expect(readProbe(file, key)).toBeUndefined();
    }
  });
});
