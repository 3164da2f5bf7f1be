// Which test files are the fast inner loop (`pnpm test:unit`) and which are
// end to end. A test file is end to end when it, or a test helper it
// imports (a relative import, or @rukh/testkit), starts processes or a
// whole host: it names node:child_process, a built binary, the invocation
// core, the MCP hosts or the harness. Everything else is a unit test.
// Read from the files, never listed by hand, so a new test lands in its
// scope by what it does.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TESTKIT = join(ROOT, "packages/testkit/src");
const STARTS = [
  /\bnode:child_process\b/,
  /\bbin\/rukh\b/,
  /\bRUKH_BIN\b/,
  /\bcreateInvocationCore\b/,
  /from "@rukh\/(core|harness|mcp)"/,
  /\bserveHttp\b|\bserveStdio\b/,
];

/** Relative and testkit imports of `file`, as paths of files. */
function localImports(file) {
  const text = readFileSync(file, "utf8");
  const out = [];
  for (const m of text.matchAll(/(?:from|import\()\s*"([^"]+)"/g)) {
    const spec = m[1];
    let target;
    if (spec.startsWith(".")) target = resolve(dirname(file), spec);
    else if (spec === "@rukh/testkit" || spec.startsWith("@rukh/testkit/"))
      target = join(
        TESTKIT,
        spec === "@rukh/testkit" ? "index" : spec.slice("@rukh/testkit/".length),
      );
    else continue;
    for (const candidate of [
      target.replace(/\.js$/, ".ts"),
      `${target}.ts`,
      target.replace(/\.mjs$/, ".mjs"),
    ])
      if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) {
        out.push(candidate);
        break;
      }
  }
  return out;
}

const verdicts = new Map();
/** Whether `file` or anything it imports locally starts processes or a host. */
function startsProcesses(file, seen = new Set()) {
  if (verdicts.has(file)) return verdicts.get(file);
  if (seen.has(file)) return false;
  seen.add(file);
  // A package's own sources are the code under test, not a helper: only test files and the test kit are read.
  if (!file.includes("/test/") && !file.startsWith(TESTKIT)) return false;
  const text = readFileSync(file, "utf8");
  const verdict =
    STARTS.some((r) => r.test(text)) || localImports(file).some((f) => startsProcesses(f, seen));
  verdicts.set(file, verdict);
  return verdict;
}

/** The test files of the package at `dir` (absolute), split by scope. */
export function testScopes(dir) {
  const test = join(dir, "test");
  const files = statSync(test, { throwIfNoEntry: false })?.isDirectory()
    ? readdirSync(test, { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".test.ts"))
        .map((f) => join(test, f))
    : [];
  const unit = files.filter((f) => !startsProcesses(f));
  return { unit, e2e: files.filter((f) => !unit.includes(f)) };
}
