// Every Node process a test starts parses the certificate file that
// NODE_EXTRA_CA_CERTS names (a machine's whole bundle doubles the CPU time
// of a Node start), yet only the processes that reach the npm registry
// through Node's own TLS need it: Verdaccio's uplink and the Node builds
// that fetch from it. The variable is set aside here, before any test runs,
// and the test kit hands it back to exactly those (`registryCaEnv`).
const ca = process.env.NODE_EXTRA_CA_CERTS;
if (ca !== undefined) {
  process.env.RUKH_TEST_REGISTRY_CA = ca;
  delete process.env.NODE_EXTRA_CA_CERTS;
}
