import { describe, expect, it } from "vitest";
import { jsonLinesLogger } from "../../src/diagnostics/_logger.js";

function logged(write: (log: ReturnType<typeof jsonLinesLogger>) => void): unknown[] {
  const lines: string[] = [];
  write(jsonLinesLogger((l) => lines.push(l)));
  for (const l of lines) expect(l.endsWith("\n") && !l.slice(0, -1).includes("\n")).toBe(true);
  return lines.map((l) => JSON.parse(l));
}

describe("diagnostics lines", () => {
  it("write each level as its number, an ISO time, the fields and the message last", () => {
    const [d, i, w, e] = logged((log) => {
      log.debug({ a: 1 }, "d");
      log.info({ invocationId: "x", command: "acme.files/count" }, "i");
      log.warn({}, "w");
      log.error({ b: "two" }, "e");
    }) as Record<string, unknown>[];
    expect([d!.level, i!.level, w!.level, e!.level]).toEqual([20, 30, 40, 50]);
    expect(new Date(String(i!.time)).toISOString()).toBe(i!.time);
    expect(Object.keys(i!)).toEqual(["level", "time", "invocationId", "command", "msg"]);
    expect(i).toMatchObject({ invocationId: "x", command: "acme.files/count", msg: "i" });
    expect(e).toMatchObject({ b: "two", msg: "e" });
  });

  it("write an error as its type, message, code, stack and causes", () => {
    const cause = new RangeError("disk full");
    const err = Object.assign(new Error("cannot archive", { cause }), { code: "ENOSPC" });
    const [line] = logged((log) => log.error({ err }, "archive failed")) as {
      err: Record<string, unknown>;
    }[];
    expect(line!.err).toMatchObject({
      type: "Error",
      message: "cannot archive",
      code: "ENOSPC",
      cause: { type: "RangeError", message: "disk full" },
    });
    expect(String(line!.err.stack)).toContain("cannot archive");
  });

  it("write what a system error says of itself: errno, syscall and path", async () => {
    const { readFile } = await import("node:fs/promises");
    const err = await readFile("/nonexistent/rukh-logger-test").catch((e: unknown) => e);
    const [line] = logged((log) => log.error({ err }, "read failed")) as {
      err: Record<string, unknown>;
    }[];
    expect(line!.err).toMatchObject({
      code: "ENOENT",
      syscall: "open",
      path: "/nonexistent/rukh-logger-test",
    });
    expect(typeof line!.err.errno).toBe("number");
  });

  it("never throw: a BigInt is written as digits and a cycle as a note of what was lost", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const [big, cycle] = logged((log) => {
      log.info({ n: 2n ** 70n }, "big");
      log.info({ cyclic }, "cycle");
    }) as Record<string, unknown>[];
    expect(big!.n).toBe("1180591620717411303424");
    expect(cycle).toMatchObject({ level: 30, msg: "cycle" });
    expect(String(cycle!.unwritable)).toMatch(/could not be written as JSON/);
  });
});
