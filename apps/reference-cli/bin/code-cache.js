"use strict";
// Compiles the bundle's own files (dist/rukh.cjs and dist/chunks/*.cjs) with
// the V8 code cache the build made for them on this very Node
// (dist/code-cache/<runtime>/<file>.v8), so that a start deserializes what
// it runs instead of compiling it: Node 20 has no module compile cache of
// its own. A cache is made by one Node build and is for that build alone:
// each Node looks only in its own runtime's folder (none there, no cache),
// and each cache begins with the SHA-256 of the runtime and the exact
// source it was made from, so it is used only for exactly that pair (V8
// itself checks no more than the source's length); a cache V8 still rejects
// (other flags) is compiled afresh. Every other file loads as Node loads
// it. See docs/decisions/R18-commonjs-bundle.md.
//
// With RUKH_CODE_CACHE=write (the build's training runs) the caches of the
// files a process loaded are written as it exits.

const { hash } = require("node:crypto");
const { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { basename, dirname, join } = require("node:path");
const vm = require("node:vm");

const DIGEST_BYTES = 32;

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
  const caches = join(dist, "code-cache", runtime);
  const write = process.env.RUKH_CODE_CACHE === "write";
  // Node 20 loads .cjs files with the .js loader unless .cjs has its own.
  const plain = Module._extensions[".cjs"] ?? Module._extensions[".js"];
  Module._extensions[".cjs"] = (module, filename) => {
    const dir = dirname(filename);
    if (dir !== dist && dir !== chunks) return plain(module, filename);
    const source = readFileSync(filename, "utf8");
    const digest = hash("sha256", `${runtime}\0${source}`, "buffer");
    const file = join(caches, `${basename(filename)}.v8`);
    let kept;
    try {
      kept = readFileSync(file);
    } catch {}
    const cachedData =
      kept !== undefined &&
      kept.length > DIGEST_BYTES &&
      digest.equals(kept.subarray(0, DIGEST_BYTES))
        ? kept.subarray(DIGEST_BYTES)
        : undefined;
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
    if (write)
      process.once("exit", () => {
        mkdirSync(caches, { recursive: true });
        writeFileSync(`${file}.tmp`, Buffer.concat([digest, script.createCachedData()]));
        renameSync(`${file}.tmp`, file);
      });
  };
};
