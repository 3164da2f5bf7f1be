// Download progress: a line rewritten in place on a terminal, at most ten
// times a second (the last byte always shown), nothing when not a terminal.
import { expect, it } from "vitest";
import { downloadProgress } from "../src/_progress.js";

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (t: string) => writes.push(t) };
}

it.each<[string, boolean, [number, number, number | undefined][], string[]]>([
  [
    "nothing when not a terminal",
    false,
    [
      [0, 1024, 2048],
      [500, 2048, 2048],
    ],
    [],
  ],
  [
    "throttled to one line per 100 ms, the last byte always shown, then cleared",
    true,
    [
      [0, 0, 4096],
      [150, 1024, 4096],
      [180, 2048, 4096],
      [190, 4096, 4096],
    ],
    [
      "\r\x1b[2Kfetching @jane/hello@1.2.0: 1 KiB of 4 KiB",
      "\r\x1b[2Kfetching @jane/hello@1.2.0: 4 KiB of 4 KiB",
      "\r\x1b[2K",
    ],
  ],
  [
    "no total when the registry sends none",
    true,
    [[200, 3000, undefined]],
    ["\r\x1b[2Kfetching @jane/hello@1.2.0: 3 KiB", "\r\x1b[2K"],
  ],
])("%s", (_name, tty, events, expected) => {
  const out = stream(tty);
  let clock = 0;
  const p = downloadProgress(out, "@jane/hello@1.2.0", () => clock);
  for (const [at, received, total] of events) {
    clock = at;
    p.onProgress(received, total);
  }
  p.done();
  expect(out.writes).toEqual(expected);
});
