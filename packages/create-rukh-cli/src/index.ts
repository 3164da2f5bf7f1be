// The complete public surface of create-rukh-cli: any export added here becomes public API.

export type { ScaffoldOptions } from "./_scaffold.js";
export { SCAFFOLD_NAME_PATTERN, scaffold } from "./_scaffold.js";
