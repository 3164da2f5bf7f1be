import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { testScopes } from "./scripts/test-scope.mjs";

// One test configuration for every package. Suites spawn real processes and
// run property tests; on a shared two-core machine (or CI running packages in
// parallel) a per-test bound of seconds is noise, so the bounds are generous
// and the tests assert behaviour, never speed. RUKH_TESTS=unit (the
// packages' `test:unit`) runs only the test files that start no process or
// host (scripts/test-scope.mjs says which), the fast inner loop. Before
// any test, vitest.setup.ts sets NODE_EXTRA_CA_CERTS aside.
const unitOnly = process.env.RUKH_TESTS === "unit";

/**
 * Test files run side by side. Most of a suite's time is spent waiting on
 * the processes, hosts and timers it starts (a package's suite keeps one
 * core under half busy), so on two cores three files at a time finish well
 * before vitest's default (one fewer than the cores: one at a time here).
 * RUKH_TEST_WORKERS sets another number.
 */
const workers = Number(
  process.env.RUKH_TEST_WORKERS ?? Math.max(3, Math.ceil(availableParallelism() * 1.5)),
);

export default defineConfig({
  test: {
    maxWorkers: workers,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))],
    ...(unitOnly && { include: testScopes(process.cwd()).unit, passWithNoTests: true }),
  },
});
