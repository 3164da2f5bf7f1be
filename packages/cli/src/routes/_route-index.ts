// The route table of one CLI run: every path and alias of the revision's
// commands and the brand's built-ins, the groups they imply, and what the
// words typed resolve to — a command, a group, the root, or nothing (with
// the nearest path).

import { editDistance, typoLimit } from "@rukh/json";
import type { CliRoute } from "@rukh/profile";
import type { CliBuiltin } from "../declarations/index.js";
import type { PublishedDescriptor, RouteHead, RouteSource } from "./_source.js";

/** The source directory of `target`'s development link, if it is one (a route that cannot be read is not). */
function devSource(dev: ReadonlyMap<string, string>, target: CommandTarget): string | undefined {
  let identity: string;
  try {
    identity = target.load().identity;
  } catch {
    return undefined;
  }
  return dev.get(identity.slice(0, identity.indexOf("/")));
}

/** A command of the route table; its full route is parsed on first use. */
class CommandTarget {
  readonly kind = "command";
  #loaded: CliRoute | undefined;
  constructor(
    readonly head: RouteHead,
    readonly source: RouteSource,
    readonly n: number,
  ) {}
  load(): CliRoute {
    this.#loaded ??= this.source.route(this.n);
    return this.#loaded;
  }
  /** What publication validated of this command's package (`undefined`: parse the package's descriptor). */
  published(): PublishedDescriptor | undefined {
    try {
      return this.source.published?.(this.n);
    } catch {
      return undefined;
    }
  }
}

/** What an entry runs: a command of the route table, or a built-in. */
export type Target = CommandTarget | { readonly kind: "builtin"; readonly builtin: CliBuiltin };

/** A path (or alias) of the index and what it runs. */
export interface Entry {
  readonly path: readonly string[];
  readonly summary: string;
  readonly target: Target;
  readonly alias: boolean;
  readonly hidden: boolean;
  /** The source directory, when the command comes from a development link. */
  readonly dev?: string;
}

/** A group of the index: a path prefix with help text of its own (or none, when only implied). */
export interface GroupEntry {
  readonly path: readonly string[];
  readonly summary: string;
  readonly description?: string;
  /** True when only development links declare it. */
  readonly dev?: boolean;
}

/** What the leading words of a command line name in the index. */
export type Resolution =
  | { readonly kind: "target"; readonly entry: Entry; readonly words: number }
  | { readonly kind: "group"; readonly group: GroupEntry; readonly words: number }
  | { readonly kind: "root" }
  | {
      readonly kind: "unknown";
      /** The longest known group prefix (possibly empty). */
      readonly group: GroupEntry | undefined;
      readonly typed: readonly string[];
    };

const key = (path: readonly string[]) => path.join(" ");

/** The route table of one CLI run: extension routes plus built-ins; built-ins win every collision. */
export class RouteIndex {
  readonly entries = new Map<string, Entry>();
  readonly groups = new Map<string, GroupEntry>();
  readonly depth: number;
  /** The revision's development links: extension id → source directory. */
  readonly dev: ReadonlyMap<string, string>;

  constructor(table: RouteSource, builtins: readonly CliBuiltin[]) {
    this.dev = table.dev ?? new Map();
    // Start-up with 1,000 commands is on the help path: one key per path,
    // no per-command closures, prefixes checked only where a built-in could
    // shadow them.
    const builtinKeys = new Set<string>();
    const builtinFirst = new Set<string>();
    for (const b of builtins) {
      const k = key(b.path);
      builtinKeys.add(k);
      builtinFirst.add(b.path[0]!);
      this.entries.set(k, {
        path: b.path,
        summary: b.summary,
        target: { kind: "builtin", builtin: b },
        alias: false,
        hidden: b.hidden ?? false,
      });
    }
    const shadowed = (path: readonly string[]) => {
      if (!builtinFirst.has(path[0]!)) return false;
      for (let n = 1; n <= path.length; n++)
        if (builtinKeys.has(key(path.slice(0, n)))) return true;
      return false;
    };
    const commands = table.commands;
    // Only where something is linked for development does an entry say
    // whether it is, reading its route when help first asks.
    const dev = table.dev !== undefined && table.dev.size > 0 ? table.dev : undefined;
    for (let n = 0; n < commands.length; n++) {
      const head = commands[n]!;
      const target = new CommandTarget(head, table, n);
      for (let i = 0; i <= head.aliases.length; i++) {
        const path = i === 0 ? head.path : head.aliases[i - 1]!;
        const k = key(path);
        if (this.entries.has(k) || shadowed(path)) continue;
        const entry = { path, summary: head.summary, target, alias: i > 0, hidden: false };
        if (dev !== undefined)
          Object.defineProperty(entry, "dev", { get: () => devSource(dev, target) });
        this.entries.set(k, entry);
      }
    }
    for (const g of table.groups) {
      const k = key(g.path);
      if (!this.entries.has(k))
        this.groups.set(k, {
          path: g.path,
          summary: g.summary,
          ...(g.description !== undefined && { description: g.description }),
          ...(this.dev.size > 0 &&
            g.extensions.length > 0 &&
            g.extensions.every((e) => this.dev.has(e)) && { dev: true }),
        });
    }
    let depth = 0;
    for (const e of this.entries.values()) {
      const path = e.path;
      if (path.length > depth) depth = path.length;
      let prefix = "";
      for (let n = 1; n < path.length; n++) {
        prefix = n === 1 ? path[0]! : `${prefix} ${path[n - 1]}`;
        if (!this.groups.has(prefix) && !this.entries.has(prefix))
          this.groups.set(prefix, { path: path.slice(0, n), summary: "" });
      }
    }
    this.depth = depth;
  }

  /** Resolves the leading command words of `argv` (stops at the first word starting with `-`). */
  resolve(argv: readonly string[]): Resolution {
    let n = 0;
    while (n < argv.length && n < this.depth && !argv[n]!.startsWith("-")) n++;
    const words = argv.slice(0, n);
    for (let i = words.length; i >= 1; i--) {
      const entry = this.entries.get(key(words.slice(0, i)));
      if (entry !== undefined) return { kind: "target", entry, words: i };
    }
    let g = 0;
    let group: GroupEntry | undefined;
    for (let i = words.length; i >= 1; i--) {
      group = this.groups.get(key(words.slice(0, i)));
      if (group !== undefined) {
        g = i;
        break;
      }
    }
    if (words.length === 0) return { kind: "root" };
    if (group !== undefined && g === words.length) return { kind: "group", group, words: g };
    // An unknown word: the words typed so far, up to one past the known group.
    return { kind: "unknown", group, typed: argv.slice(0, Math.min(argv.length, g + 1)) };
  }

  /** Visible children of a group path (`[]`: the root), groups first then commands, each sorted. */
  children(path: readonly string[]): { groups: GroupEntry[]; entries: Entry[] } {
    // Word by word, without joining every path: root help at 10,000 commands looks at all of them.
    const n = path.length;
    const under = (p: readonly string[]) => {
      if (p.length !== n + 1) return false;
      for (let i = 0; i < n; i++) if (p[i] !== path[i]) return false;
      return true;
    };
    const sorted = <T extends { path: readonly string[] }>(items: T[]): T[] =>
      items
        .map((item) => [key(item.path), item] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([, item]) => item);
    const groups: GroupEntry[] = [];
    for (const g of this.groups.values()) if (under(g.path)) groups.push(g);
    const entries: Entry[] = [];
    for (const e of this.entries.values()) if (!e.hidden && under(e.path)) entries.push(e);
    return { groups: sorted(groups), entries: sorted(entries) };
  }

  /**
   * The visible command or group path closest to `typed` by edit distance on
   * the joined words (a path of another length costs 3 more per word), if
   * it is within json's `typoLimit` of what was typed.
   */
  suggest(typed: readonly string[]): readonly string[] | undefined {
    let best: { path: readonly string[]; d: number } | undefined;
    const consider = (path: readonly string[]) => {
      const a = key(typed.slice(0, path.length));
      const b = key(path);
      const d = editDistance(a, b) + Math.abs(typed.length - path.length) * 3;
      if (best === undefined || d < best.d || (d === best.d && b < key(best.path)))
        best = { path, d };
    };
    for (const e of this.entries.values()) if (!e.hidden) consider(e.path);
    for (const g of this.groups.values()) consider(g.path);
    // The same threshold as every other "did you mean", on the words as typed.
    return best !== undefined && best.d <= typoLimit(key(typed)) ? best.path : undefined;
  }
}
