import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkStoredPackage, StateDirectory, signPackage } from "../dist/index.js";

// The check every call makes of its stored package: a realistic 20-file
// package (a descriptor, a program and 18 modules of 4–40 KB). Baseline: the
// check that must hash everything (no record yet); case: the check of an
// unchanged package, which only compares recorded stamps. Target: ≤ 2 ms.
const root = new URL("../../../", import.meta.url);
const key = readFileSync(new URL("fixtures/keys/example-publisher.key", root), "utf8");
const pub = readFileSync(new URL("fixtures/keys/example-publisher.pub", root), "utf8").trim();

export default async function (suite) {
  const work = mkdtempSync(join(tmpdir(), "rukh-bench-storecheck-"));
  try {
    const pkg = join(work, "pkg");
    mkdirSync(join(pkg, "bin"), { recursive: true });
    mkdirSync(join(pkg, "lib"), { recursive: true });
    writeFileSync(
      join(pkg, "rukh-extension.json"),
      JSON.stringify({
        format: "rukh.extension/2",
        id: "bench.store",
        version: "1.0.0",
        publisher: "acme",
        commands: [
          {
            id: "run",
            path: ["run"],
            summary: "Run",
            inputs: [],
            execute: {
              mapping: "managed",
              program: "bin/run.mjs",
              runtime: "node",
              result: { kind: "text" },
            },
            machine: {
              eligible: true,
              interaction: "none",
              requiredFeatures: ["rukh.command-result/1"],
            },
          },
        ],
      }),
    );
    writeFileSync(join(pkg, "bin", "run.mjs"), "import './../lib/m0.mjs';\n");
    for (let i = 0; i < 18; i++)
      writeFileSync(
        join(pkg, "lib", `m${i}.mjs`),
        `// module ${i}\n${"x".repeat(4_096 + i * 2_048)}\n`,
      );
    await signPackage(pkg, key, { publisher: "acme" });
    const home = new StateDirectory(join(work, "home"));
    await home.setConfig({
      brand: "acme",
      endpointNamespace: "acme-bench",
      trustedPublishers: [{ id: "acme", publicKey: pub, namespaces: ["bench.*"] }],
      presets: {
        default: {
          commands: ["bench.store/*"],
          actions: [],
          resources: [],
          deadlineMs: 1000,
          maxConcurrency: 1,
          enforcement: "host-trusted",
        },
      },
      defaultPreset: "default",
    });
    const digest = (await home.install(pkg)).revision.extensions[0].digest;
    const record = join(work, "home", "cache", "store", `${digest}.json`);
    await checkStoredPackage(home.root, digest);
    await suite.compare("store check of a 20-file package, per call", {
      baseline: [
        "hash every file (first use)",
        async () => {
          rmSync(record, { force: true });
          await checkStoredPackage(home.root, digest);
        },
      ],
      cases: [["unchanged: compare recorded stamps", () => checkStoredPackage(home.root, digest)]],
      samples: 40,
      batch: 5,
      note: "target ≤ 2 ms",
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
