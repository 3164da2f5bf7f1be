// The one rule over every string of a descriptor: nothing in it may be
// invisible. Its text reaches agents verbatim in tools/list (titles,
// descriptions, enum values, defaults, the result schema) and people in help
// and docs; a character one of them cannot see would let a publisher tell
// the model what the owner never reads. And no member name may break a
// line: a name is printed inside one, in every pointer an error shows.

import {
  findInvisible,
  findLineBreak,
  type JsonValue,
  pointerAppend,
  type ValidationIssue,
} from "@rukh/json";
import type { DescriptorIssueCode } from "./_codes.js";
import { codePointName } from "./_values.js";

const EXPECTED =
  "expected text without invisible characters (tag, zero-width, bidirectional and other format characters): an agent reads them, a person does not see them";

/** `U+200B (a zero-width character) at character 3`, for the first hidden character of `s`. */
function described(s: string): string | undefined {
  const found = findInvisible(s);
  if (found === undefined) return undefined;
  return `${codePointName(found.codePoint)} (${found.kind}) at character ${found.offset}`;
}

/**
 * An `invisible_character` issue for each string (and member name) of the
 * descriptor value `v` at `path` that holds a hidden character, naming the
 * first one's code point and its offset in code points; a `line_break`
 * issue for each member name that holds a line break.
 *
 * @example
 * hiddenTextIssues({ summary: "ok\u{E0049}" }, "")[0].path; // "/summary"
 */
export function hiddenTextIssues(v: JsonValue, path = ""): ValidationIssue<DescriptorIssueCode>[] {
  const issues: ValidationIssue<DescriptorIssueCode>[] = [];
  // The pointer is spelled only for what is reported: most descriptors report nothing.
  const tokens: (string | number)[] = [];
  const here = () => tokens.reduce<string>((at, t) => pointerAppend(at, t), path);
  const walk = (x: JsonValue): void => {
    if (typeof x === "string") {
      const what = described(x);
      if (what !== undefined)
        issues.push({
          path: here(),
          code: "invisible_character",
          message: `got ${what}; ${EXPECTED}`,
        });
    } else if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        tokens.push(i);
        walk(x[i]!);
        tokens.pop();
      }
    } else if (typeof x === "object" && x !== null) {
      for (const key in x) {
        if (!Object.hasOwn(x, key)) continue;
        tokens.push(key);
        const what = described(key);
        if (what !== undefined)
          issues.push({
            path: here(),
            code: "invisible_character",
            message: `member name holds ${what}; ${EXPECTED}`,
          });
        const brk = findLineBreak(key);
        if (brk !== undefined)
          issues.push({
            path: here(),
            code: "line_break",
            message: `member name holds ${codePointName(brk.codePoint)} (${brk.kind}) at character ${brk.offset}; expected a name on one line`,
          });
        walk(x[key]!);
        tokens.pop();
      }
    }
  };
  walk(v);
  return issues;
}
