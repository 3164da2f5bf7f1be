// The brand's administrative commands, one file per group. They change the
// profile only through `@rukh/profile` publications and are built-ins of the
// CLI: never MCP tools.

import type { CliBuiltin } from "@rukh/cli";
import { type AdminOptions, guard } from "./_kit.js";
import { authorBuiltins } from "./author.js";
import { catalogBuiltins } from "./catalog.js";
import { doctorBuiltin } from "./doctor.js";
import { exposeBuiltins } from "./expose.js";
import { extBuiltins } from "./ext.js";
import { mcpBuiltins } from "./mcp/index.js";
import { presetBuiltins } from "./preset.js";
import { profileBuiltins } from "./profile.js";
import { runsBuiltins } from "./runs.js";
import { trustBuiltins } from "./trust.js";

export { initialConfig } from "./_current.js";

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
