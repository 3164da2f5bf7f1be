import { spawnSync } from "node:child_process";
import { RUKH_BIN, runCli } from "@rukh/testkit/cli";
import { describe, expect, it } from "vitest";
import { useEchoState } from "./_echo.js";

// One grammar of bytes on every surface: a command line that is not UTF-8
// is refused, naming the argument and the byte, before anything runs — as
// MCP refuses the same bytes — while U+FFFD written as UTF-8 is just text.
const at = useEchoState("rukh-cli-bytes-");

/** `rukh <words…> --name <bytes>`, the bytes written by the shell's printf (octal escapes). */
function withBytes(words: string, printf: string) {
  return spawnSync("sh", ["-c", `exec "$0" ${words} --name "$(printf '${printf}')"`, RUKH_BIN], {
    env: { PATH: process.env.PATH ?? "", RUKH_HOME: at.root },
    encoding: "utf8",
  });
}

describe.skipIf(process.platform !== "linux")("a command line that is not UTF-8", () => {
  it("is refused with the argument and the byte offset, and the command does not run", () => {
    const r = withBytes("say", "a\\377b");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      'argument 3 ("a\uFFFDb") is not valid UTF-8: byte 1 is 0xff; expected a UTF-8 command line',
    );
    const json = withBytes("--json say", "\\303\\050");
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({
      code: "usage",
      message: expect.stringContaining("argument 4"),
    });
    expect(JSON.parse(json.stdout).error.message).toContain("byte 0 is 0xc3");
    const runs = JSON.parse(runCli({ args: ["--json", "runs", "list"], stateDir: at.root }).stdout)
      .result.runs as unknown[];
    expect(runs).toEqual([]);
  });

  it("takes U+FFFD written as UTF-8 as text, and runs", () => {
    const r = withBytes("say", "a\\357\\277\\275b");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("a\uFFFDb");
  });
});
