#!/usr/bin/env node
// Runs every package's benchmarks (packages/*/bench/*.bench.mjs and
// apps/*/bench/*.bench.mjs) and prints one table of medians and ratios against
// a baseline measured in the same run, interleaved with the cases so that the
// noise of a shared machine hits both alike.
//
// A bench module default-exports `async (suite) => { … }` and calls
// `suite.compare(group, { baseline: [name, fn], cases: [[name, fn], …], samples, batch, note })`
// where fn may be async. A row may also be reported as measured elsewhere with
// `suite.report(group, name, medianMs, baselineMs, note)`. What is measured in
// bytes and tokens rather than time is reported with
// `suite.size(group, name, { bytes, tokens }, baseline, note)` and printed in
// a second table.
//
// It measures on the active LTS line, the newest of NODE_LINES (the npm
// registry's `node` package, installed as the Node matrix installs it): run
// on any other Node, it runs itself again on that one, and tells the benches
// which Node it was first started with (RUKH_BENCH_FIRST_NODE) so that the
// start-up group reports that line too. RUKH_BENCH_NODE=here measures on the
// Node that runs it.
//
// `--check` measures nothing: it imports every bench module on the Node that
// runs it and fails, naming each, if one does not load (an import a change
// broke) or does not default-export a function. `pnpm test` runs it, so a
// bench cannot rot unseen between two runs of `pnpm bench`.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { installNode, NODE_LINES } from "./node-lines.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
if (process.argv[2] === "--check") process.exit(await checkBenches());

const PRIMARY = NODE_LINES.at(-1);
if (process.env.RUKH_BENCH_NODE !== "here" && process.version !== `v${PRIMARY}`) {
  const got = installNode(PRIMARY);
  if ("node" in got) {
    // Its folder first on PATH: the shipped binary starts with `#!/usr/bin/env node`.
    const again = spawnSync(got.node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      stdio: "inherit",
      env: {
        ...process.env,
        PATH: `${dirname(got.node)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
        RUKH_BENCH_NODE: "here",
        RUKH_BENCH_FIRST_NODE: process.execPath,
      },
    });
    process.exit(again.status ?? 1);
  }
  console.error(`bench: measuring on ${process.version}: ${got.reason}`);
}

// The shipped binary runs on the `node` PATH names: it must be this one, or a
// ratio against this Node's peers would compare two Node lines.
const onPath = spawnSync("node", ["--version"], { encoding: "utf8" }).stdout?.trim();
if (onPath !== process.version) {
  console.error(
    `bench: PATH's node is ${onPath}, the bench's ${process.version}: put ${dirname(process.execPath)} first on PATH`,
  );
  process.exit(2);
}

const filter = process.argv[2];
const rows = [];
const sizes = [];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function sample(fn, batch) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) {
    const r = fn();
    if (r && typeof r.then === "function") await r;
  }
  return Number(process.hrtime.bigint() - t0) / 1e6 / batch;
}

const suite = {
  async compare(group, { baseline, cases, samples = 30, batch = 1, warmup = 3, note = "" }) {
    const all = [baseline, ...cases];
    for (const [, fn] of all) for (let i = 0; i < warmup; i++) await sample(fn, batch);
    const times = all.map(() => []);
    for (let s = 0; s < samples; s++) {
      for (let i = 0; i < all.length; i++) times[i].push(await sample(all[i][1], batch));
    }
    const base = median(times[0]);
    rows.push({ group, name: `${baseline[0]} (baseline)`, ms: base, ratio: 1, note: "" });
    cases.forEach(([name], i) => {
      const ms = median(times[i + 1]);
      rows.push({ group, name, ms, ratio: ms / base, note });
    });
    return { baseline: base, cases: cases.map((_, i) => median(times[i + 1])) };
  },
  size(group, name, { bytes, tokens }, baseline, note = "") {
    sizes.push({
      group,
      name,
      bytes,
      tokens,
      ...(baseline !== undefined && {
        bytesRatio: bytes / baseline.bytes,
        tokensRatio: tokens / baseline.tokens,
      }),
      note,
    });
  },
  report(group, name, ms, baselineMs, note = "") {
    rows.push({
      group,
      name,
      ms,
      ratio: baselineMs === undefined ? undefined : ms / baselineMs,
      note,
    });
  },
};

const files = benchFiles();

// A bench that fails (a target it asserts, a server that went away) is
// reported after the table, which still holds every row measured, and makes
// the run fail.
const failed = [];
for (const file of files) {
  if (filter && !file.includes(filter)) continue;
  process.stderr.write(`bench: ${relative(root, file)}\n`);
  try {
    const mod = await import(pathToFileURL(file).href);
    await mod.default(suite);
  } catch (e) {
    failed.push(`${relative(root, file)}: ${e?.stack ?? e}`);
  }
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(4));
console.log(`\nnode ${process.version}, ${process.platform}/${process.arch}`);
if (rows.length > 0) {
  console.log("\nmedians\n");
  console.log("| group | case | median ms | ratio | note |");
  console.log("|---|---|---:|---:|---|");
  for (const r of rows) {
    const ratio = r.ratio === undefined ? "" : `${r.ratio.toFixed(2)}×`;
    console.log(`| ${r.group} | ${r.name} | ${fmt(r.ms)} | ${ratio} | ${r.note} |`);
  }
}
if (sizes.length > 0) {
  console.log("\nsizes on the wire (tokens: o200k_base, counted by js-tiktoken)\n");
  console.log("| group | case | bytes | ratio | tokens | ratio | note |");
  console.log("|---|---|---:|---:|---:|---:|---|");
  const x = (r) => (r === undefined ? "" : `${r.toFixed(2)}×`);
  for (const r of sizes)
    console.log(
      `| ${r.group} | ${r.name} | ${r.bytes} | ${x(r.bytesRatio)} | ${r.tokens} | ${x(r.tokensRatio)} | ${r.note} |`,
    );
}
for (const f of failed) console.error(`bench failed: ${f}`);
if (failed.length > 0) process.exitCode = 1;

/** Every package's and app's bench modules (`<top>/<dir>/bench/*.bench.mjs`), in order. */
function benchFiles() {
  const files = [];
  for (const top of ["packages", "apps"]) {
    let dirs = [];
    try {
      dirs = readdirSync(join(root, top));
    } catch {
      continue;
    }
    for (const dir of dirs.sort()) {
      const benchDir = join(root, top, dir, "bench");
      let names = [];
      try {
        names = readdirSync(benchDir);
      } catch {
        continue;
      }
      for (const f of names.sort()) if (f.endsWith(".bench.mjs")) files.push(join(benchDir, f));
    }
  }
  return files;
}

/** Imports every bench module without running it: the exit code, 1 when any fails to load or is no bench. */
async function checkBenches() {
  const broken = [];
  const files = benchFiles();
  for (const file of files) {
    try {
      const mod = await import(pathToFileURL(file).href);
      if (typeof mod.default !== "function")
        broken.push(`${relative(root, file)}: no default-exported function`);
    } catch (e) {
      broken.push(`${relative(root, file)}: ${e?.message ?? e}`);
    }
  }
  for (const b of broken) console.error(`bench --check: ${b}`);
  if (broken.length === 0) console.log(`bench --check: ${files.length} bench modules load`);
  return broken.length === 0 ? 0 : 1;
}
