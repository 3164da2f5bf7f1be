import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { killTree, processStartTime } from "../src/_tree.js";

const alive = (pid: number) => processStartTime(pid) !== null;
const settle = () => new Promise((r) => setTimeout(r, 100));

it("kills a process (and the group it leads) only while its start time still matches", async () => {
  const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  const exited = new Promise((r) => child.once("exit", r));
  const pid = child.pid!;
  const started = processStartTime(pid);
  expect(started).toMatch(/^[0-9]+$/);
  // A reused pid has another start time: it is left alone.
  expect(killTree(pid, String(Number(started) - 1), pid)).toBe(false);
  await settle();
  expect(alive(pid)).toBe(true);
  expect(killTree(pid, started!, pid)).toBe(true);
  await exited;
  expect(alive(pid)).toBe(false);
});

it("reads no start time for a pid that does not exist", () => {
  expect(processStartTime(2 ** 22 + 1)).toBeNull();
});
