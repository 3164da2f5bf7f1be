import { defineConfig } from "vitest/config";

// One test configuration for every package. Suites spawn real processes and
// run property tests; on a shared two-core machine (or CI running packages in
// parallel) a per-test bound of seconds is noise, so the bounds are generous
// and the tests assert behaviour, never speed.
export default defineConfig({
  test: { testTimeout: 30_000, hookTimeout: 60_000 },
});
