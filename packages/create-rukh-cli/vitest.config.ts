import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";

// template/ holds the scaffold's own test, which runs in a scaffolded project, not here.
export default mergeConfig(
  shared,
  defineConfig({ test: { exclude: ["**/node_modules/**", "template/**"] } }),
);
