// The certificates a process needs to reach the npm registry through Node's
// own TLS, which the workspace's test setup sets aside for every other
// process (vitest.setup.ts at the workspace root).

/** `NODE_EXTRA_CA_CERTS` as the machine set it, for a child that reaches the registry; empty when unset. */
export function registryCaEnv(): { NODE_EXTRA_CA_CERTS?: string } {
  const ca = process.env.NODE_EXTRA_CA_CERTS ?? process.env.RUKH_TEST_REGISTRY_CA;
  return ca === undefined ? {} : { NODE_EXTRA_CA_CERTS: ca };
}
