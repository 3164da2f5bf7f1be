// The brand's administrative commands, one room per group, each behind its
// index: ext/ (install, upgrade, enable, disable, remove, list), author/
// (init, types, test, validate, pack, sign, keygen, link), trust/,
// expose/, preset/, profile/, runs/, doctor/, catalog/ (tools list, docs),
// and the mcp group (mcp serve, config, install), over the kit/ room every
// group shares. They change the profile only through `@rukh/profile`
// publications and are built-ins of the CLI: never MCP tools. Each that
// changes state says so (`changesState`) and runs as one journaled call of
// the core, under the owner's own authority. Every group
// imports kit/ and nothing else of the admin, but catalog/, which reads the
// mcp group's endpoints and tool checks.

import type { CliBuiltin } from "@rukh/cli";
import { authorBuiltins } from "./author/index.js";
import { catalogBuiltins } from "./catalog/index.js";
import { doctorBuiltin } from "./doctor/index.js";
import { exposeBuiltins } from "./expose/index.js";
import { extBuiltins } from "./ext/index.js";
import { type AdminOptions, guard } from "./kit/index.js";
import { mcpBuiltins } from "./mcp/index.js";
import { presetBuiltins } from "./preset/index.js";
import { profileBuiltins } from "./profile/index.js";
import { runsBuiltins } from "./runs/index.js";
import { trustBuiltins } from "./trust/index.js";

export { initialConfig } from "./kit/index.js";

/** Every administrative command of the brand. */
export function adminBuiltins(options: AdminOptions): CliBuiltin[] {
  const { brand } = options;
  const guarded = guard(brand);
  const all: CliBuiltin[] = [
    ...extBuiltins(brand, guarded),
    ...authorBuiltins(brand, guarded),
    ...trustBuiltins(brand, guarded),
    ...exposeBuiltins(brand, guarded),
    ...presetBuiltins(brand, guarded),
    ...profileBuiltins(brand, guarded),
    ...runsBuiltins(guarded),
    ...catalogBuiltins(brand, guarded, () => all),
    ...mcpBuiltins(options, guarded),
    doctorBuiltin(guarded),
  ];
  return all;
}
