// Where a problem is in a text, and which known word a mistyped one meant:
// the two things every "what was expected" message needs.

/**
 * Line and column (both from 1; the column counted in characters) of a
 * UTF-8 byte offset into `text`, as `line:column`.
 *
 * @example
 * lineColumn('{\n  "a": }', 9); // "2:8"
 */
export function lineColumn(text: string | Uint8Array, byteOffset: number): string {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : Buffer.from(text);
  const before = bytes.subarray(0, Math.max(0, byteOffset)).toString("utf8");
  const line = before.split("\n").length;
  return `${line}:${[...before.slice(before.lastIndexOf("\n") + 1)].length + 1}`;
}

/**
 * The UTF-8 byte offset in the JSON `text` of what the JSON pointer names:
 * an object member's key, an array element, or the whole document for `""`;
 * `undefined` when the text holds no such member or is not JSON enough to
 * tell. Pair it with {@link lineColumn} to show where an issue is.
 *
 * @example
 * pointerOffset('{\n  "a": [1, 2]\n}', "/a/1"); // 13
 */
export function pointerOffset(text: string, pointer: string): number | undefined {
  if (pointer !== "" && !pointer.startsWith("/")) return undefined;
  const tokens =
    pointer === ""
      ? []
      : pointer
          .slice(1)
          .split("/")
          .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  let at = space(text, 0);
  for (const [n, token] of tokens.entries()) {
    const found =
      text[at] === "{"
        ? member(text, at, token)
        : text[at] === "["
          ? element(text, at, token)
          : undefined;
    if (found === undefined) return undefined;
    // The last token names where the member starts; the others, where its value does.
    at = n === tokens.length - 1 ? found[0] : found[1];
  }
  return Buffer.byteLength(text.slice(0, at), "utf8");
}

/** In the object at `at`: [where member `key` starts, where its value starts]. */
function member(text: string, at: number, key: string): [number, number] | undefined {
  let i = space(text, at + 1);
  while (text[i] === '"') {
    const end = stringEnd(text, i);
    if (end === undefined) return undefined;
    let name: unknown;
    try {
      name = JSON.parse(text.slice(i, end));
    } catch {
      return undefined;
    }
    const colon = space(text, end);
    if (text[colon] !== ":") return undefined;
    const value = space(text, colon + 1);
    if (name === key) return [i, value];
    const after = valueEnd(text, value);
    if (after === undefined) return undefined;
    i = space(text, after);
    if (text[i] !== ",") return undefined;
    i = space(text, i + 1);
  }
  return undefined;
}

/** In the array at `at`: [where element `index` starts, the same]. */
function element(text: string, at: number, index: string): [number, number] | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(index)) return undefined;
  let i = space(text, at + 1);
  for (let n = 0; text[i] !== "]" && i < text.length; n++) {
    if (n === Number(index)) return [i, i];
    const after = valueEnd(text, i);
    if (after === undefined) return undefined;
    i = space(text, after);
    if (text[i] !== ",") return undefined;
    i = space(text, i + 1);
  }
  return undefined;
}

function space(text: string, i: number): number {
  while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  return i;
}

/** Just past the string starting at `i`. */
function stringEnd(text: string, i: number): number | undefined {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') return j + 1;
  }
  return undefined;
}

/** Just past the value starting at `i` (strings and nesting followed, nothing else checked). */
function valueEnd(text: string, i: number): number | undefined {
  if (text[i] === '"') return stringEnd(text, i);
  if (text[i] !== "{" && text[i] !== "[") {
    let j = i;
    while (j < text.length && !",]} \t\n\r".includes(text[j]!)) j++;
    return j === i ? undefined : j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      const end = stringEnd(text, j);
      if (end === undefined) return undefined;
      j = end - 1;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return undefined;
}

/**
 * The optimal string alignment distance of two words: insertions,
 * deletions, substitutions and swaps of neighbours each cost 1.
 *
 * @example
 * editDistance("sumary", "summary"); // 1
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    d.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        d[0]!.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]!.push(v);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The most edits a typed word may be from a known one and still be taken for
 * a typo of it: 2, and never more than half the typed word (so `ab` is not
 * taken for `id`). The one "did you mean" threshold of every Rukh message, be
 * it a descriptor field, an owner-config member, a CLI flag or a command path.
 *
 * @example
 * typoLimit("sumary"); // 2
 * typoLimit("ab"); // 1
 */
export function typoLimit(typed: string): number {
  return Math.min(2, Math.floor(typed.length / 2));
}

/**
 * The known word nearest to `typed` by {@link editDistance} (case ignored;
 * the first of equals wins), when it is within {@link typoLimit}, or
 * `undefined`.
 *
 * @example
 * nearestWord("sumary", ["summary", "description"]); // "summary"
 */
export function nearestWord(typed: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = editDistance(typed.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= typoLimit(typed) ? best : undefined;
}
