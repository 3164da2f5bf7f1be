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
// <package>-code-cache/<a name made of dist's path>/<runtime>/), which is used
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
// Hashing is done once: a cache that passed is recorded (in checked.json of
// the folder caches are written to) with the device, inode, size and change
// times of its file and of its source, and while neither file has changed
// since, a start uses it without hashing again, the rule the store check
// follows for a stored package. So a start that uses its caches loads no
// node:crypto (about 8 % of a help run on Node 26); a file written since, in
// place or anew, has other times and is hashed and checked as above.
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
const { homedir } = require("node:os");
const { basename, dirname, join } = require("node:path");
const vm = require("node:vm");

/** SHA-256, loaded when first needed: a start whose caches are recorded as checked hashes nothing. */
const sha256 = (data) => require("node:crypto").hash("sha256", data, "buffer");

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
  const mine = join(base, `${pkg}-code-cache`, folderName(dist), runtime);
  if (typeof process.getuid !== "function" || !ownFolder(base) || !ownFolder(mine))
    return { read: [beside], write: undefined };
  return { read: [beside, mine], write: mine };
}

/**
 * A short name for the folder of `dist`'s caches in a user's cache folder
 * (FNV-1a, 64 bits, hex). It only keeps two installs apart; each cache is
 * bound to its file's path by its digest all the same.
 */
function folderName(dist) {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(dist))
    h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, "0");
}

/** The digest a cache of `source` at `place` (runtime and path) begins with. */
const digestOf = (place, source) => sha256(`${place}\0${source}`);

/** The cache `kept` (a cache file's bytes) holds, if made for `digest`'s runtime, path and source and whole; otherwise `undefined`. */
function checked(kept, digest) {
  if (kept.length <= HEAD_BYTES || !digest.equals(kept.subarray(0, DIGEST_BYTES))) return undefined;
  const data = kept.subarray(HEAD_BYTES);
  return sha256(data).equals(kept.subarray(DIGEST_BYTES, HEAD_BYTES)) ? data : undefined;
}

/** A file's device, inode, size and change times (ns), or `undefined` when it cannot be read. */
function stampOf(file) {
  try {
    const s = lstatSync(file, { bigint: true });
    return s.isFile() ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : undefined;
  } catch {
    return undefined;
  }
}

/** Reads `file` with its stamp before and after: equal, the bytes are the stamped file's; otherwise no stamp. */
function readStamped(file, encoding) {
  const before = stampOf(file);
  if (before === undefined) return undefined;
  let bytes;
  try {
    bytes = readFileSync(file, encoding);
  } catch {
    return undefined;
  }
  return { bytes, stamp: stampOf(file) === before ? before : undefined };
}

const RECORD = "checked.json";
const RECORD_MAX_BYTES = 1 << 20;

/** The caches recorded in `folder` as checked: cache file → the stamps of its source and of itself then. */
function readRecord(folder) {
  if (folder === undefined) return {};
  try {
    const file = join(folder, RECORD);
    if (lstatSync(file).size > RECORD_MAX_BYTES) return {};
    const r = JSON.parse(readFileSync(file, "utf8"));
    return typeof r === "object" && r !== null && !Array.isArray(r) ? r : {};
  } catch {
    return {};
  }
}

/** Writes `record` to `folder` whole (a private temporary file renamed), keeping only its caches that still exist. */
function writeRecord(folder, record) {
  try {
    const kept = {};
    for (const [file, stamps] of Object.entries(record))
      if (dirname(file) === folder && typeof stamps === "string" && stampOf(file) !== undefined)
        kept[file] = stamps;
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const tmp = join(folder, `${RECORD}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(kept), { mode: 0o600 });
    renameSync(tmp, join(folder, RECORD));
  } catch {
    // A record that cannot be kept costs the next start a hash, nothing else.
  }
}

/**
 * Writes `data`, the cache `digest` names, to `file` whole (a private
 * temporary file renamed); returns the stamp of the file it wrote, or
 * `undefined` when it wrote none (or another process's took its place).
 */
function keep(file, digest, data) {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([digest, sha256(data), data]), {
      mode: 0o600,
    });
    const { dev, ino } = lstatSync(tmp, { bigint: true });
    renameSync(tmp, file);
    const made = stampOf(file);
    return made?.startsWith(`${dev}:${ino}:`) ? made : undefined;
  } catch {
    // A cache that cannot be kept is compiled again next time.
    return undefined;
  }
}

/** Loads the `.cjs` files directly in `dist` and `dist/chunks` through their caches. */
exports.install = (where) => {
  // Modules are known by their real paths.
  const dist = realpathSync(where);
  // Without Node's own dynamic-import loader for scripts, an import() inside could not run: no cache then.
  const dynamicImport = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (dynamicImport === undefined) return;
  const chunks = join(dist, "chunks");
  // The Node build a cache belongs to: its version, machine and V8.
  const runtime = `node-${process.versions.node}-${process.arch}-v8-${process.versions.v8}`;
  const training = process.env.RUKH_CODE_CACHE === "write";
  const where_ = places(dist, runtime, training);
  /** The caches to write as the process exits: every file's when training, else those compiled without one. */
  const pending = [];
  /** What the folder written to records as checked, and whether this start added to it. */
  const record = readRecord(where_.write);
  let recorded = false;
  // Node 20 loads .cjs files with the .js loader unless .cjs has its own.
  const plain = Module._extensions[".cjs"] ?? Module._extensions[".js"];
  Module._extensions[".cjs"] = (module, filename) => {
    const dir = dirname(filename);
    if (dir !== dist && dir !== chunks) return plain(module, filename);
    const read = readStamped(filename, "utf8");
    if (read === undefined) return plain(module, filename);
    const source = read.bytes;
    // The file's path too: V8 keeps the name a cache was made under for the stack traces of its code.
    let digest;
    const digestNow = () => (digest ??= digestOf(`${runtime}\0${filename}`, source));
    const name = `${basename(filename)}.v8`;
    let cachedData;
    for (const folder of where_.read) {
      const file = join(folder, name);
      const cache = readStamped(file);
      if (cache === undefined) continue;
      const stamps =
        read.stamp !== undefined && cache.stamp !== undefined
          ? `${read.stamp} ${cache.stamp}`
          : undefined;
      if (stamps !== undefined && record[file] === stamps && cache.bytes.length > HEAD_BYTES) {
        cachedData = cache.bytes.subarray(HEAD_BYTES);
        break;
      }
      cachedData = checked(cache.bytes, digestNow());
      if (cachedData === undefined) continue;
      if (stamps !== undefined && where_.write !== undefined) {
        record[file] = stamps;
        recorded = true;
      }
      break;
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
      pending.push({
        file: join(where_.write, name),
        digest: digestNow,
        source: read.stamp,
        script,
      });
  };
  // One listener for every file: their caches hold what the whole run compiled.
  process.once("exit", () => {
    for (const p of pending) {
      // Made from the source as stamped: checked from the start. A cache
      // not written leaves no record (the file there failed its checks).
      const made = keep(p.file, p.digest(), p.script.createCachedData());
      if (p.source !== undefined && made !== undefined) record[p.file] = `${p.source} ${made}`;
      else delete record[p.file];
      recorded = true;
    }
    if (recorded) writeRecord(where_.write, record);
  });
};
