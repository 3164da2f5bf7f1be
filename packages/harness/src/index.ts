// The complete public surface of @rukh/harness: any export added here becomes public API.
export type { CallOptions, Harness, HarnessOptions, HarnessOutcome } from "./_harness.js";
export { testExtension } from "./_harness.js";
