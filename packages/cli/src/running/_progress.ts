// A running command's progress on a terminal: one line on stderr, redrawn
// at most ten times a second and erased before the outcome is written.
// Nothing is shown when stderr is not a terminal.

import { type InvocationProgress, throttleProgress } from "@rukh/core";
import { type Session, terminalText } from "../output/index.js";

/** Shortest time between two redraws of the line. */
const REDRAW_MS = 100;
/** Longest progress line, in characters (the rest is cut with an ellipsis). */
const LINE_MAX = 80;

/** The progress line of one call: `report` for each report, `clear` before the outcome. */
export interface ProgressLine {
  report(p: InvocationProgress): void;
  clear(): void;
}

/** The progress line of a call of `command`, or `undefined` when stderr is no terminal or the output is JSON. */
export function progressLine(s: Session, command: string): ProgressLine | undefined {
  if (!s.errTTY || s.g.json) return undefined;
  let shown = false;
  const draw = (p: InvocationProgress) => {
    const amount =
      p.total !== undefined && p.total > 0
        ? `${Math.min(100, Math.floor((p.progress / p.total) * 100))}%`
        : String(p.progress);
    let line = `${command}: ${amount}${p.message !== undefined ? ` ${terminalText(p.message).replace(/[\r\n\t]/g, " ")}` : ""}`;
    // One terminal row: wrapped, the erase below would leave the rest behind.
    const cols = s.stderr.columns;
    const width =
      cols !== undefined && cols > 0 ? Math.max(20, Math.min(LINE_MAX, cols - 1)) : LINE_MAX;
    if ([...line].length > width) line = `${[...line].slice(0, width - 1).join("")}…`;
    // Carriage return and erase-line: the line is redrawn in place.
    s.stderr.write(`\r\u001b[2K${line}`);
    shown = true;
  };
  const throttle = throttleProgress(REDRAW_MS, draw);
  return {
    report: (p) => throttle.report(p),
    clear() {
      throttle.stop();
      if (shown) s.stderr.write("\r\u001b[2K");
      shown = false;
    },
  };
}
