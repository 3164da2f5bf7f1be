// The complete public surface of @rukh/oauth: any export added here becomes public API.

export type { BearerError } from "./_challenge.js";
export { bearerChallenge } from "./_challenge.js";
export type { IntrospectionOptions } from "./_introspect.js";
export type {
  Authentication,
  ResourceServer,
  ResourceServerOptions,
  ScopePreset,
  TokenBinding,
} from "./_resource-server.js";
export { createResourceServer } from "./_resource-server.js";
