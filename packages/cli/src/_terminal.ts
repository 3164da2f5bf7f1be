// Text from extensions and commands on its way to a terminal: control
// characters other than newline and tab are shown, never obeyed, so no
// result or message can move the cursor, retitle the window, plant a
// hyperlink or hide the text before it.

// C0 controls other than tab and newline, DEL, and the C1 controls.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with every control character but newline and tab written as a
 * visible `\u00XX` escape.
 *
 * @example
 * terminalText("ok\u001b[2J"); // "ok\\u001b[2J"
 */
export function terminalText(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * JSON text for a terminal: `JSON.stringify` already escapes C0 controls;
 * this escapes DEL and the C1 controls too, and stays the same JSON value.
 */
export function terminalJson(json: string): string {
  return json.replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
