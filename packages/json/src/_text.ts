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
 * The known word nearest to `typed`, when it is close enough to be a typo
 * (at most 2 edits, and fewer than half the word), or `undefined`.
 *
 * @example
 * nearestWord("sumary", ["summary", "description"]); // "summary"
 */
export function nearestWord(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = editDistance(typed.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= Math.min(2, Math.floor(typed.length / 2))
    ? best
    : undefined;
}
