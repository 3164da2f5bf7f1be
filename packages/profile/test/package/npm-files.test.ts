import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ProfileError, StateDirectory, signPackage } from "../../src/index.js";
import { computeManifest } from "../../src/package.js";
import { descriptor, FIXTURE_KEY, ownerConfig, tempDir } from "../_helpers.js";

// A package directory with a package.json is read as npm publishes it, so the
// files Rukh signs are the files a registry hands out. Each layout is checked
// against real npm (`npm pack --dry-run`), which needs no network.
const work = tempDir("rukh-npm-files-");
const npm = spawnSync("npm", ["--version"], { encoding: "utf8" });
const npmMissing = npm.status === 0 ? undefined : "npm is not on PATH";

const RUNTIME = { "package.json": '{"name":"@rukh/ipc","version":"0.1.0","type":"module"}\n' };
const desc = JSON.stringify(descriptor("acme.files", "acme", [{ id: "a" }]));

function write(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** What `npm pack` would put in the tarball, sorted, less the signature (which no manifest lists). */
function npmPackList(dir: string): string[] {
  const r = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: dir,
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout)[0]
    .files.map((f: { path: string }) => f.path)
    .filter((p: string) => p !== "rukh-signature.json")
    .sort();
}

async function rukhList(dir: string): Promise<string[]> {
  return (await computeManifest(dir)).manifest.files.map((f) => f.path).sort();
}

/** A package as `npm install` leaves it: bundled runtime, an unbundled dependency, dev tools and their links. */
function installedLayout(name: string, manifest: object): string {
  const dir = write(join(work, name), {
    "package.json": `${JSON.stringify({ name: "@acme/files", version: "1.0.0", ...manifest }, null, 2)}\n`,
    "package-lock.json": "{}\n",
    "rukh-extension.json": desc,
    "rukh-signature.json": "{}\n",
    "bin/run.mjs": 'import "@rukh/ipc";\n',
    "src/run.ts": 'import "@rukh/ipc";\n',
    "README.md": "# files\n",
    LICENSE: "MIT\n",
    ".gitignore": "node_modules\n",
    ".npmrc": "save-exact=true\n",
    "vendor/rukh-ipc-0.1.0.tgz": "not really a tarball\n",
    ...Object.fromEntries(
      Object.entries(RUNTIME).map(([p, t]) => [`node_modules/@rukh/ipc/${p}`, t]),
    ),
    "node_modules/@rukh/ipc/index.js": "export {};\n",
    "node_modules/left/package.json":
      '{"name":"left","version":"1.0.0","dependencies":{"pad":"1","deep":"1"}}\n',
    "node_modules/left/index.js": "export default 1;\n",
    "node_modules/left/node_modules/deep/package.json": '{"name":"deep","version":"1.0.0"}\n',
    "node_modules/left/node_modules/deep/index.js": "\n",
    "node_modules/pad/package.json": '{"name":"pad","version":"1.0.0"}\n',
    "node_modules/pad/index.js": "\n",
    "node_modules/typescript/package.json": '{"name":"typescript","version":"5.9.3"}\n',
    "node_modules/typescript/bin/tsc": "\n",
  });
  mkdirSync(join(dir, "node_modules/.bin"));
  symlinkSync("../typescript/bin/tsc", join(dir, "node_modules/.bin/tsc"));
  return dir;
}

const deps = {
  dependencies: { "@rukh/ipc": "file:vendor/rukh-ipc-0.1.0.tgz", left: "1.0.0" },
  devDependencies: { typescript: "5.9.3" },
};

describe.skipIf(npmMissing !== undefined)("a package with a package.json", () => {
  it.each([
    [
      "files and one bundled dependency",
      {
        ...deps,
        files: ["bin", "rukh-extension.json", "rukh-signature.json"],
        bundleDependencies: ["@rukh/ipc"],
      },
    ],
    [
      "files, every dependency bundled, with what they depend on",
      {
        ...deps,
        files: ["bin/", "./rukh-extension.json", "rukh-signature.json"],
        bundleDependencies: ["@rukh/ipc", "left"],
      },
    ],
    ["no files and no bundle", { ...deps }],
  ])("is read as npm packs it: %s", async (name, manifest) => {
    const dir = installedLayout(name.replace(/\W+/g, "-"), manifest);
    // Without files, npm would follow the .gitignore, which Rukh does not read.
    if (!("files" in manifest)) {
      await expect(rukhList(dir)).rejects.toThrow(/\.gitignore: npm publishes or leaves out/);
      return;
    }
    expect(await rukhList(dir)).toEqual(npmPackList(dir));
  });

  it("without files, is everything but node_modules, lockfiles and .npmrc, as npm has it", async () => {
    const dir = write(join(work, "nofiles"), {
      "package.json": '{"name":"@acme/nofiles","version":"1.0.0"}\n',
      "package-lock.json": "{}\n",
      "rukh-extension.json": desc,
      "bin/run.mjs": "\n",
      "notes/todo.txt": "\n",
      ".npmrc": "\n",
      "node_modules/x/package.json": '{"name":"x"}\n',
    });
    expect(await rukhList(dir)).toEqual(npmPackList(dir));
  });

  it.each([
    [
      { files: ["bin/*.mjs", "rukh-extension.json", "rukh-signature.json"] },
      'files[0] is "bin/*.mjs"; Rukh reads plain paths only',
    ],
    [{ files: ["bin", "rukh-signature.json"] }, "files leaves out rukh-extension.json"],
    [{ files: ["bin", "rukh-extension.json"] }, "files leaves out rukh-signature.json"],
    [{ files: "bin" }, "files is not a list"],
  ])("refuses what it cannot read as npm does: %j", async (manifest, message) => {
    const dir = write(tempDir("rukh-npm-refused-"), {
      "package.json": JSON.stringify(manifest),
      "rukh-extension.json": desc,
      "bin/run.mjs": "\n",
    });
    const err = await computeManifest(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProfileError);
    expect((err as ProfileError).code).toBe("unsupported_package_json");
    expect((err as ProfileError).message).toContain(message);
  });

  it("names bundling as the fix for an import of a dependency npm would not publish", async () => {
    const dir = installedLayout("unbundled-import", {
      ...deps,
      files: ["bin", "rukh-extension.json", "rukh-signature.json"],
      bundleDependencies: ["@rukh/ipc"],
    });
    writeFileSync(join(dir, "bin/run.mjs"), 'import "@rukh/ipc";\nimport "left";\n');
    await expect(signPackage(dir, FIXTURE_KEY)).rejects.toThrow(
      'bin/run.mjs imports "left", which the package does not contain (list it in package.json dependencies and bundleDependencies, as npm install --save-bundle left does)',
    );
  });

  it("installs from the tarball npm packs of it, with the signature made from the directory", async () => {
    const dir = installedLayout("packed", {
      ...deps,
      files: ["bin", "rukh-extension.json", "rukh-signature.json"],
      bundleDependencies: ["@rukh/ipc"],
    });
    await signPackage(dir, FIXTURE_KEY);
    const r = spawnSync("npm", ["pack", "--ignore-scripts", "--pack-destination", work], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    const home = new StateDirectory(tempDir("rukh-home-"));
    await home.setConfig(ownerConfig() as never);
    await home.install(join(work, r.stdout.trim()));
    const config = JSON.parse(readFileSync(join(dir, "rukh-signature.json"), "utf8"));
    expect(config.publisher).toBe("acme");
  });
});
