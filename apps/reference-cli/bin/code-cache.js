"use strict";
// Compiles the bundle's own files (dist/rukh.cjs and dist/chunks/*.cjs) with
// a V8 code cache made for them by this very Node, so that a start
// deserializes what it runs instead of compiling it (Node 20 has no module
// compile cache of its own, and Node's own would not see these files: they
// load through vm.Script). See docs/decisions/R18-commonjs-bundle.md.
//
// Where a cache comes from: the build leaves one for the Node that ran it
// (dist/code-cache/<runtime>/<file>.v8). Any other Node makes its own on its
// first run: as it exits, it writes the cache of each file it compiled
// without one, beside the build's when this user may write there, else in
// this user's cache folder ($XDG_CACHE_HOME or ~/.cache, then
// <package>-code-cache/<digest of dist's path>/<runtime>/), which is used
// only while it is this user's and no one else may write it.
//
// What a cache is checked for before V8 sees it: each begins with the
// SHA-256 of the runtime (Node version, machine, V8), the file's path and
// the exact source it was made from, then the SHA-256 of the cache that
// follows. So a cache of another Node, another place or another source is
// never used (V8 itself checks no more than the source's length, and would
// report the code's errors at the path the cache was made at), nor one
// damaged or cut short (V8 checks no checksum of its own in a release
// build); a cache V8 still rejects (other flags) is compiled afresh and
// made again. A copy of the CLI elsewhere makes its own on its first run.
// (node:crypto is the start's largest single cost, but the route cache's
// reader hashes with it on the same path, so it is paid once either way.)
// Every other file loads as Node loads it.
//
// With RUKH_CODE_CACHE=write (the build's training runs) the caches of all
// the files a process loaded are written beside the build's as it exits.

const {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} = require("node:fs");
const Module = require("node:module");
const { hash } = require("node:crypto");
const { homedir } = require("node:os");
const { basename, dirname, join } = require("node:path");
const vm = require("node:vm");

const DIGEST_BYTES = 32;
/** Two SHA-256s: of runtime, path and source; of the cache. */
const HEAD_BYTES = 2 * DIGEST_BYTES;

/** Whether this process may create files in `dir` (or, when it does not exist yet, in its parent). */
function writable(dir) {
  for (let d = dir; ; d = dirname(d)) {
    try {
      accessSync(d, constants.W_OK);
      return true;
    } catch (e) {
      if (e.code !== "ENOENT" || dirname(d) === d) return false;
    }
  }
}

/** Whether `dir` is this user's and no one else may write it (or does not exist yet). */
function ownFolder(dir) {
  try {
    const s = lstatSync(dir);
    return s.isDirectory() && s.uid === process.getuid() && (s.mode & 0o022) === 0;
  } catch (e) {
    return e.code === "ENOENT";
  }
}

/** The folders a cache of this runtime is read from, in order, and the one a new cache goes to. */
function places(dist, runtime, training) {
  const beside = join(dist, "code-cache", runtime);
  if (training || writable(beside)) return { read: [beside], write: beside };
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  const pkg = basename(dirname(dist));
  const mine = join(base, `${pkg}-code-cache`, hash("sha256", dist).slice(0, 16), runtime);
  if (typeof process.getuid !== "function" || !ownFolder(base) || !ownFolder(mine))
    return { read: [beside], write: undefined };
  return { read: [beside, mine], write: mine };
}

/** The digest a cache of `source` at `place` (runtime and path) begins with. */
const digestOf = (place, source) => hash("sha256", `${place}\0${source}`, "buffer");

/** The cache in `file` made for `digest`'s runtime, path and source, whole; otherwise `undefined`. */
function checked(file, digest) {
  let kept;
  try {
    kept = readFileSync(file);
  } catch {
    return undefined;
  }
  if (kept.length <= HEAD_BYTES || !digest.equals(kept.subarray(0, DIGEST_BYTES))) return undefined;
  const data = kept.subarray(HEAD_BYTES);
  return hash("sha256", data, "buffer").equals(kept.subarray(DIGEST_BYTES, HEAD_BYTES))
    ? data
    : undefined;
}

/** Writes `data`, the cache `digest` names, to `file` whole (a private temporary file renamed). */
function keep(file, digest, data) {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([digest, hash("sha256", data, "buffer"), data]), {
      mode: 0o600,
    });
    renameSync(tmp, file);
  } catch {
    // A cache that cannot be kept is compiled again next time.
  }
}

/** Loads the `.cjs` files directly in `dist` and `dist/chunks` through their caches. */
exports.install = (where) => {
  // Modules are known by their real paths.
  const dist = realpathSync(where);
  // Without Node's own dynamic-import loader for scripts, an import() inside could not run: no cache then.
  const dynamicImport = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (dynamicImport === undefined || typeof hash !== "function") return;
  const chunks = join(dist, "chunks");
  // The Node build a cache belongs to: its version, machine and V8.
  const runtime = `node-${process.versions.node}-${process.arch}-v8-${process.versions.v8}`;
  const training = process.env.RUKH_CODE_CACHE === "write";
  const where_ = places(dist, runtime, training);
  /** The caches to write as the process exits: every file's when training, else those compiled without one. */
  const pending = [];
  // Node 20 loads .cjs files with the .js loader unless .cjs has its own.
  const plain = Module._extensions[".cjs"] ?? Module._extensions[".js"];
  Module._extensions[".cjs"] = (module, filename) => {
    const dir = dirname(filename);
    if (dir !== dist && dir !== chunks) return plain(module, filename);
    const source = readFileSync(filename, "utf8");
    // The file's path too: V8 keeps the name a cache was made under for the stack traces of its code.
    const digest = digestOf(`${runtime}\0${filename}`, source);
    const name = `${basename(filename)}.v8`;
    let cachedData;
    for (const folder of where_.read) {
      cachedData = checked(join(folder, name), digest);
      if (cachedData !== undefined) break;
    }
    const script = new vm.Script(Module.wrap(source), {
      filename,
      importModuleDynamically: dynamicImport,
      ...(cachedData !== undefined && { cachedData }),
    });
    const body = script.runInThisContext({ displayErrors: true });
    body.call(
      module.exports,
      module.exports,
      Module.createRequire(filename),
      module,
      filename,
      dir,
    );
    const fresh = cachedData === undefined || script.cachedDataRejected === true;
    if (where_.write !== undefined && (training || fresh))
      pending.push({ file: join(where_.write, name), digest, script });
  };
  // One listener for every file: their caches hold what the whole run compiled.
  process.once("exit", () => {
    for (const p of pending) keep(p.file, p.digest, p.script.createCachedData());
  });
};
