// Where the route index reads a revision's commands from: a source that
// lists each command's path, aliases and summary, and reads its full route
// only when asked.

import type { ExtensionDescriptor } from "@rukh/descriptor";
import type { CliRoute, CliRouteTable } from "@rukh/profile";

/** Enough of a route to list, route and complete it; the full `CliRoute` loads on demand. */
export interface RouteHead {
  readonly path: readonly string[];
  readonly aliases: readonly (readonly string[])[];
  readonly summary: string;
}

/** A route table whose command details are read lazily (see `_fastpath.ts`). */
export interface RouteSource {
  readonly groups: CliRouteTable["groups"];
  readonly commands: readonly RouteHead[];
  /** The full route of `commands[i]`. */
  route(i: number): CliRoute;
  /** The descriptor publication validated for `commands[i]`'s package, when the source holds it. */
  published?(i: number): PublishedDescriptor | undefined;
  /** The revision's development links: extension id → source directory. */
  readonly dev?: ReadonlyMap<string, string>;
}

/** A package's descriptor as publication validated it, and the package's digest. */
export interface PublishedDescriptor {
  readonly package: string;
  readonly descriptor: ExtensionDescriptor;
}

/** A source over a fully loaded route table. */
export function tableSource(
  table: CliRouteTable,
  dev: ReadonlyMap<string, string> = new Map(),
): RouteSource {
  return {
    dev,
    groups: table.groups,
    commands: table.commands.map((c) => ({
      path: c.path,
      aliases: c.aliases,
      summary: c.cli.summary,
    })),
    route: (i) => table.commands[i]!,
  };
}
