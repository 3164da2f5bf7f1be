/**
 * One problem found by a validator: where (an RFC 6901 JSON pointer into the
 * validated document, `""` for the root), a stable code, and a message that
 * says what was expected. Shared by every Rukh validator so that adapters can
 * render issues from any package alike.
 *
 * @example
 * const issue: ValidationIssue = { path: "/commands/0/id", code: "invalid_id", message: "expected snake_case" };
 */
export interface ValidationIssue<Code extends string = string> {
  readonly path: string;
  readonly code: Code;
  readonly message: string;
}

/**
 * What a validator returns: the validated value, or every issue found.
 *
 * @example
 * function check(x: unknown): Validation<number> {
 *   return typeof x === "number" ? { ok: true, value: x } : { ok: false, issues: [{ path: "", code: "type", message: "expected a number" }] };
 * }
 */
export type Validation<T, Code extends string = string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly ValidationIssue<Code>[] };

/**
 * Appends one reference token to a JSON pointer, escaping `~` and `/` (RFC 6901).
 *
 * @example
 * pointerAppend("/properties", "a/b"); // "/properties/a~1b"
 */
export function pointerAppend(pointer: string, token: string | number): string {
  const t =
    typeof token === "number" ? String(token) : token.replaceAll("~", "~0").replaceAll("/", "~1");
  return `${pointer}/${t}`;
}

/**
 * Length of a string in Unicode code points (a surrogate pair counts once, an
 * unpaired surrogate once). The one definition of "length" for Rukh's string
 * limits, shared by inputs and results.
 *
 * @example
 * codePointLength("a😀"); // 2
 */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i + 1 < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
