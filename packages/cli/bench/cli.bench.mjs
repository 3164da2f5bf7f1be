// Start-up of the @rukh/cli adapter alone (the fixture brand `acme`, built
// from nothing but the adapter), spawned with a clean environment against a
// bare `node -e ''` in the same run: what the adapter itself costs. What users
// run — the shipped `rukh` binary, with realistic packages and peers — is
// measured by apps/bench.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { StateDirectory, signPackage } from "@rukh/profile";

const BIN = fileURLToPath(new URL("../test/fixtures/acme.mjs", import.meta.url));
const KEY = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.key", import.meta.url),
  "utf8",
);
const PUB = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.pub", import.meta.url),
  "utf8",
).trim();

function descriptor(e, n) {
  return {
    format: "rukh.extension/2",
    id: `fx.bulk${e}`,
    version: "1.0.0",
    publisher: "acme",
    groups: [{ path: [`g${e}`], summary: `Bulk group ${e}` }],
    commands: Array.from({ length: n }, (_, i) => ({
      id: `c${i}`,
      path: [`g${e}`, `c${i}`],
      summary: `Bulk command ${i}`,
      inputs: [
        { id: "name", type: "string", maxLength: 64, summary: "A name", required: true },
        { id: "count", type: "integer", minimum: 0, maximum: 9, summary: "How many", default: 1 },
      ],
      execute: {
        mapping: "managed",
        program: "bin/run.mjs",
        runtime: "node",
        result: { kind: "text" },
      },
      machine: { eligible: true, interaction: "none", requiredFeatures: ["rukh.command-result/1"] },
    })),
  };
}

async function home(commands) {
  const work = mkdtempSync(join(tmpdir(), "rukh-cli-bench-"));
  const state = new StateDirectory(join(work, "home"));
  await state.setConfig(
    JSON.stringify({
      brand: "acme",
      endpointNamespace: "acme-bench",
      trustedPublishers: [{ id: "acme", publicKey: PUB, namespaces: ["acme.*", "fx.*"] }],
      presets: {
        default: {
          commands: [],
          actions: [],
          resources: [],
          deadlineMs: 10_000,
          maxConcurrency: 4,
          enforcement: "host-trusted",
        },
      },
      defaultPreset: "default",
    }),
  );
  const changes = [];
  for (let e = 0; e * 100 < commands; e++) {
    const dir = join(work, `pkg${e}`);
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeFileSync(
      join(dir, "rukh-extension.json"),
      JSON.stringify(descriptor(e, Math.min(100, commands - e * 100))),
    );
    writeFileSync(join(dir, "bin", "run.mjs"), "process.exit(0);\n");
    await signPackage(dir, KEY, { publisher: "acme" });
    changes.push({ op: "install", source: dir });
  }
  await state.apply(changes);
  return state.root;
}

const run = (args, env) => () => {
  const r = spawnSync(process.execPath, args, {
    env: { PATH: process.env.PATH, ...env },
    stdio: "ignore",
  });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}`);
};

export default async (suite) => {
  const small = await home(10);
  const large = await home(1000);
  await suite.compare("cli adapter alone: start-up of the acme fixture (spawned)", {
    baseline: ["node -e ''", run(["-e", ""], {})],
    cases: [
      ["acme --help, 10 commands", run([BIN, "--help"], { ACME_HOME: small })],
      ["acme g0 c1 --help, 10 commands", run([BIN, "g0", "c1", "--help"], { ACME_HOME: small })],
      ["acme --help, 1,000 commands", run([BIN, "--help"], { ACME_HOME: large })],
      [
        "acme g7 c42 --help, 1,000 commands",
        run([BIN, "g7", "c42", "--help"], { ACME_HOME: large }),
      ],
      [
        "acme __complete g7 c, 1,000 commands",
        run([BIN, "__complete", "--", "g7", "c"], { ACME_HOME: large }),
      ],
    ],
    samples: 15,
    warmup: 2,
    note: "target ≤ 1.5× for help",
  });
};
