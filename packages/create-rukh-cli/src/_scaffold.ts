import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BIN_NAME_SCRIPT, BIN_NAME_SOURCE } from "./_bin-name.js";

/** A brand: lowercase letters, digits and `-`, starting with a letter; it becomes the command name. */
export const SCAFFOLD_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** Options of {@link scaffold}. */
export interface ScaffoldOptions {
  /** The brand and command name, e.g. `acme`. */
  readonly name: string;
  /** Directory to create; must not exist or be empty. */
  readonly dir: string;
  /** Version range of the `@rukh/*` packages, default `^<this package's version>`. */
  readonly rukhVersion?: string;
  /**
   * A folder of `@rukh/*` tarballs (what `scripts/pack-workspace.mjs` writes):
   * they are copied into the brand's `vendor/rukh/`, and the brand installs
   * every `@rukh` package from there by a relative `file:` path, its own and
   * theirs, instead of from a registry; the brand moves with them.
   */
  readonly packages?: string;
}

/**
 * The `@rukh` packages a brand depends on, by their names after `@rukh/`; a
 * folder of tarballs must hold each.
 */
export const RUKH_PACKAGES = [
  "cli",
  "command-result",
  "core",
  "descriptor",
  "harness",
  "ipc",
  "json",
  "mcp",
  "oauth",
  "profile",
  "registry",
];
/** Where a brand scaffolded from tarballs keeps them. */
const VENDOR = "vendor/rukh";
/** The dependency specifier of a tarball copied into the brand: relative, so the brand can move. */
const vendored = (file: string | undefined) =>
  file === undefined ? undefined : `file:${VENDOR}/${basename(file)}`;
const TEMPLATE = fileURLToPath(new URL("../template/", import.meta.url));

/**
 * Creates a new branded CLI from the reference CLI: its own command name,
 * MCP endpoint namespace and state directory (`$XDG_STATE_HOME/<name>`), and
 * a test that runs the built binary. Returns the files written.
 *
 * @example
 * scaffold({ name: "acme", dir: "./acme" });
 */
export function scaffold(options: ScaffoldOptions): string[] {
  const { name, dir } = options;
  if (!SCAFFOLD_NAME_PATTERN.test(name)) {
    throw new Error(
      `name ${JSON.stringify(name)} is not a valid command name; expected ${SCAFFOLD_NAME_PATTERN}`,
    );
  }
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new Error(`${dir} exists and is not empty; expected a new or empty directory`);
  }
  const own = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const range = options.rukhVersion ?? `^${own.version}`;
  const local = options.packages === undefined ? undefined : tarballs(options.packages);
  // The template names no brand: the CLI reads it from package.json's bin,
  // the one setting a brand is renamed by.
  const copy = (path: string) => readFileSync(join(TEMPLATE, path), "utf8");
  const files: Record<string, string> = {
    "package.json": `${JSON.stringify(
      {
        name,
        version: "0.1.0",
        private: true,
        type: "module",
        // The brand: its one key names the command, the state-directory
        // variable (<NAME>_HOME) and what `mcp config` runs.
        bin: { [name]: `./bin/${name}` },
        // The Node release lines Rukh is tested on, as its own packages declare them.
        engines: own.engines,
        scripts: {
          build: `node ${BIN_NAME_SCRIPT} && tsc -p tsconfig.build.json`,
          test: "vitest run",
        },
        dependencies: Object.fromEntries(
          RUKH_PACKAGES.map((p) => [`@rukh/${p}`, vendored(local?.get(`@rukh/${p}`)) ?? range]),
        ),
        // Their own @rukh dependencies from the same folder.
        ...(local !== undefined && {
          overrides: Object.fromEntries([...local].map(([n, file]) => [n, vendored(file)])),
        }),
        devDependencies: {
          "@types/node": "^20.19.0",
          typescript: "5.9.3",
          vite: "8.3.8",
          vitest: "4.1.12",
        },
      },
      null,
      2,
    )}\n`,
    "tsconfig.json": `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2024"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          verbatimModuleSyntax: true,
          skipLibCheck: true,
          rootDir: "src",
          outDir: "dist",
        },
        include: ["src"],
      },
      null,
      2,
    )}\n`,
    "tsconfig.build.json": `${JSON.stringify({ extends: "./tsconfig.json" }, null, 2)}\n`,
    // Each test starts the built CLI, a process or more: on a busy runner that takes seconds,
    // past vitest's default bound of 5.
    "vitest.config.ts": `import { defineConfig } from "vitest/config";\n\n// Each test starts the built CLI; on a busy machine that takes seconds.\nexport default defineConfig({ test: { testTimeout: 30_000 } });\n`,
    ".gitignore": "node_modules/\ndist/\n",
    "README.md": `# ${name}\n\nA branded command-line tool built on Rukh. Its commands come from trusted, installable extensions; the same commands are served to AI agents over MCP (\`${name} mcp serve\`).\n\n\`\`\`sh\nnpm install && npm run build && npm test\n./bin/${name} --help\n./bin/${name} doctor\n\`\`\`\n`,
    // The reference CLI runs its bundle; a scaffold builds with tsc alone and runs its output,
    // loaded only once the gate let this Node and system through.
    [`bin/${name}`]: `#!/usr/bin/env node\nimport "./node-gate.cjs";\n\nconst { start } = await import("../dist/main.js");\nstart(process.argv.slice(2));\n`,
    "bin/node-gate.cjs": copy("bin/node-gate.cjs"),
    [BIN_NAME_SCRIPT]: BIN_NAME_SOURCE,
    // Every source file of the template, as the reference CLI has it.
    ...Object.fromEntries(
      (readdirSync(join(TEMPLATE, "src"), { recursive: true }) as string[])
        .filter((f) => f.endsWith(".ts"))
        .map((f) => [`src/${f}`, copy(`src/${f}`)]),
    ),
    "test/cli.test.ts": copy("test/cli.test.ts"),
  };
  const written: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    written.push(path);
  }
  chmodSync(join(dir, "bin", name), 0o755);
  for (const file of local?.values() ?? []) {
    mkdirSync(join(dir, VENDOR), { recursive: true });
    copyFileSync(file, join(dir, VENDOR, basename(file)));
    written.push(`${VENDOR}/${basename(file)}`);
  }
  return written;
}

/**
 * The `@rukh/*` tarballs of `folder` as paths by package name,
 * named as `pnpm pack` names them (`rukh-<name>-<version>.tgz`); every
 * package the scaffold depends on must be there.
 */
function tarballs(folder: string): Map<string, string> {
  if (!existsSync(folder))
    throw new Error(`--packages ${folder} does not exist; expected a folder of @rukh tarballs`);
  const found = new Map<string, string>();
  for (const f of readdirSync(folder)) {
    const m = /^rukh-([a-z][a-z-]*?)-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/.exec(f);
    if (m !== null) found.set(`@rukh/${m[1]}`, join(folder, f));
  }
  const missing = RUKH_PACKAGES.filter((p) => !found.has(`@rukh/${p}`));
  if (missing.length > 0)
    throw new Error(
      `--packages ${folder} has no tarball of ${missing.map((p) => `@rukh/${p}`).join(", ")}; expected rukh-<name>-<version>.tgz files as scripts/pack-workspace.mjs writes them`,
    );
  return found;
}
