// A package's part: what a revision's catalog and route cache need of one
// installed package beyond their headers — its validated descriptor and each
// command's full CLI route, one JSON line each. A part depends on the package
// alone, so it is written once, when the package is first published
// (`revisions/parts/<digest>.json`), and every later revision that keeps the
// package refers to it: a publication writes the parts of what it installs
// and two headers, not everything installed.

import type { ExtensionDescriptor } from "@rukh/descriptor";
import { sha256Hex } from "@rukh/json";
import { routeOf } from "../projection/index.js";
import { routeLineDigest } from "../routes/index.js";
import type { RouteRow } from "./_cached-routes.js";

/** A package's part: its text, the text's SHA-256 and the route cache rows of its commands. */
export interface Part {
  /** The package's digest. */
  readonly digest: string;
  readonly text: string;
  readonly sha: string;
  readonly rows: readonly RouteRow[];
}

/** The part of a package (by digest) with a validated descriptor. */
export function packagePart(digest: string, descriptor: ExtensionDescriptor): Part {
  const routes = descriptor.commands.map((c) => routeOf(descriptor.id, c));
  const lines = routes.map((r) => JSON.stringify(r));
  const text = [JSON.stringify(descriptor), ...lines].map((l) => `${l}\n`).join("");
  return {
    digest,
    text,
    sha: sha256Hex(text),
    rows: routes.map((r, i) => ({
      entry: { path: r.path, aliases: r.aliases, summary: r.cli.summary },
      part: digest,
      line: i + 1,
      digest: routeLineDigest(lines[i]!),
    })),
  };
}
