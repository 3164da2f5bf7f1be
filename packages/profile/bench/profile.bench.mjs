import {
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listTools, StateDirectory, signPackage } from "../dist/index.js";

// 1,000 signed extensions × 10 commands, installed in one publication before
// anything is timed; then policy-only publications of the whole profile (each
// re-validates 10,000 commands, projects 10,000 tools and commits with fsync).
const EXTENSIONS = 1_000;
const COMMANDS = 10;
const root = new URL("../../../", import.meta.url);
const key = readFileSync(new URL("fixtures/keys/example-publisher.key", root), "utf8");
const pub = readFileSync(new URL("fixtures/keys/example-publisher.pub", root), "utf8").trim();

function descriptor(i) {
  const id = `bench.ext${i}`;
  return {
    format: "rukh.extension/2",
    id,
    version: "1.0.0",
    publisher: "acme",
    commands: Array.from({ length: COMMANDS }, (_, c) => ({
      id: `cmd${c}`,
      path: [`e${i}`, `cmd${c}`],
      summary: `Command ${c} of extension ${i}`,
      inputs: [
        { id: "name", type: "string", maxLength: 64, summary: "A name", required: true },
        { id: "count", type: "integer", minimum: 0, maximum: 100, summary: "How many" },
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

function config(ns) {
  const ids = Array.from({ length: EXTENSIONS }, (_, i) => `bench.ext${i}`);
  return {
    brand: "bench",
    endpointNamespace: ns,
    trustedPublishers: [{ id: "acme", publicKey: pub, namespaces: ["acme.*", "bench.*"] }],
    exposure: { extensions: ids },
    presets: {
      default: {
        commands: ids.map((id) => `${id}/*`),
        actions: [],
        resources: [],
        deadlineMs: 1000,
        maxConcurrency: 4,
        enforcement: "strict",
      },
    },
    defaultPreset: "default",
  };
}

export default async (suite) => {
  const work = mkdtempSync(join(tmpdir(), "rukh-profile-bench-"));
  const sources = [];
  for (let i = 0; i < EXTENSIONS; i++) {
    const dir = join(work, "src", `ext${i}`);
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeFileSync(join(dir, "rukh-extension.json"), JSON.stringify(descriptor(i)));
    writeFileSync(join(dir, "bin", "run.mjs"), "process.exit(0);\n");
    await signPackage(dir, key, { publisher: "acme" });
    sources.push({ op: "install", source: dir });
  }
  const home = new StateDirectory(join(work, "home"));
  await home.setConfig(config("bench-0"));
  await home.apply(sources);

  let n = 0;
  const revisionText = readFileSync(
    join(home.root, "revisions", `${await home.activeRevisionId()}.json`),
  );
  const baselineWrite = () => {
    const fd = openSync(join(work, `baseline-${n++ % 4}.json`), "w");
    writeFileSync(fd, revisionText);
    fsyncSync(fd);
    closeSync(fd);
  };
  await suite.compare("profile: publish 1,000 extensions × 10 commands", {
    baseline: ["write+fsync the same revision file", baselineWrite],
    cases: [
      [
        "setConfig (validate + project 10,000 tools + atomic commit)",
        () => home.setConfig(config(`bench-${++n}`)),
      ],
    ],
    samples: 10,
    warmup: 1,
    note: "target ≤ 1,000 ms",
  });

  // Cold projection: a fresh instance re-verifies all 1,000 stored packages.
  await suite.compare("profile: load + project the active revision", {
    baseline: ["JSON.parse of the revision file", () => JSON.parse(revisionText.toString())],
    cases: [
      [
        "fresh StateDirectory → projection (verifies 1,000 packages)",
        () => new StateDirectory(home.root).projection(),
      ],
    ],
    samples: 5,
    warmup: 1,
  });

  const projection = await home.projection();
  const cursorKey = await home.cursorKey();
  const cursors = [undefined];
  for (let page = listTools(projection, { preset: "default", cursorKey }); page.nextCursor; ) {
    cursors.push(page.nextCursor);
    page = listTools(projection, { preset: "default", cursorKey, cursor: page.nextCursor });
  }
  let p = 0;
  const firstPage = listTools(projection, { preset: "default", cursorKey }).tools;
  await suite.compare("profile: one page of the cached projection (10,000 tools)", {
    baseline: ["JSON.stringify of one page of tools", () => JSON.stringify(firstPage)],
    cases: [
      [
        "listTools (verify cursor, slice, sign next cursor)",
        () => {
          const cursor = cursors[p++ % cursors.length];
          return listTools(
            projection,
            cursor === undefined
              ? { preset: "default", cursorKey }
              : { preset: "default", cursorKey, cursor },
          );
        },
      ],
    ],
    samples: 30,
    batch: 20,
    note: `target ≤ 1 ms; ${cursors.length} pages`,
  });
};
