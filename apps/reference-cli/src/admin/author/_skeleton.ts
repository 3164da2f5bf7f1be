// The files of a new extension package (`ext init`): a descriptor that
// points editors at the JSON Schema, one command with a typed input, its
// handler kept apart from the process entry so a plain `node --test` can call
// it, the handler types generated from the descriptor, a test, and a README
// that walks through validate, sign and install.

import { runtimeArchive } from "./_authoring.js";

/** The languages `ext init` can write a skeleton in. */
export const SKELETON_LANGUAGES = ["js", "ts", "python", "sh"] as const;
/** One of {@link SKELETON_LANGUAGES}. */
export type SkeletonLanguage = (typeof SKELETON_LANGUAGES)[number];

/** The program each language's command runs. */
const PROGRAMS: Record<SkeletonLanguage, string> = {
  js: "bin/hello.mjs",
  ts: "bin/hello.js",
  python: "bin/hello.py",
  sh: "bin/hello.sh",
};

/** Where `ext init` and `ext types` put the generated types, in the package. */
export const TYPES_FILE = "rukh-types.d.ts";

/** The TypeScript a new TypeScript package pins for `npm run build`: the one this project builds with. */
export const TYPESCRIPT_VERSION = "5.9.3";

/** The files of a new package for extension `id` (`<publisher>.<name>`), by path. */
export async function skeletonFiles(
  id: string,
  brand: string,
  lang: SkeletonLanguage,
): Promise<Record<string, string>> {
  const { descriptorTypes, parseDescriptor } = await import("@rukh/descriptor");
  const publisher = id.slice(0, id.indexOf("."));
  const group = id.slice(id.lastIndexOf(".") + 1);
  // A shell script cannot speak the authenticated channel (binary frames
  // under HMAC-SHA-256): it is a passthrough program, CLI only, its words
  // its own to parse.
  const command =
    lang === "sh"
      ? {
          id: "hello",
          path: [group, "hello"],
          summary: "Greet someone",
          description: "Prints a greeting; every word after the command goes to the script.",
          execute: { mapping: "passthrough", program: PROGRAMS.sh, runtime: "native" },
        }
      : {
          id: "hello",
          path: [group, "hello"],
          summary: "Greet someone",
          description: "Returns a greeting as text.",
          inputs: [
            {
              id: "name",
              type: "string",
              minLength: 1,
              maxLength: 64,
              required: true,
              positional: 0,
              summary: "Who to greet",
            },
          ],
          execute: {
            mapping: "managed",
            program: PROGRAMS[lang],
            runtime: lang === "python" ? "native" : "node",
            result: { kind: "text" },
          },
          machine: {
            eligible: true,
            interaction: "none",
            requiredFeatures: ["rukh.command-result/1"],
          },
        };
  const descriptor = {
    $schema: "https://rukh.dev/schemas/rukh.extension.schema.json",
    format: "rukh.extension/2",
    id,
    version: "0.1.0",
    publisher,
    summary: `The ${group} commands`,
    groups: [{ path: [group], summary: `Commands of ${id}` }],
    commands: [command],
  };
  const parsed = parseDescriptor(JSON.stringify(descriptor));
  if (!parsed.ok)
    throw new Error(`the skeleton descriptor is invalid: ${parsed.issues[0]?.message}`);
  const identity = JSON.stringify(`${id}/hello`);
  const npmPackage = {
    name: `@${publisher}/${id.slice(publisher.length + 1)}`,
    description: descriptor.summary,
  };
  const files = {
    js: (i: string) => jsFiles(i, npmPackage),
    ts: (i: string) => tsFiles(i, npmPackage),
    python: pythonFiles,
    sh: shFiles,
  }[lang](identity);
  return {
    "rukh-extension.json": `${JSON.stringify(descriptor, null, 2)}\n`,
    // The types are for the languages TypeScript checks.
    ...((lang === "js" || lang === "ts") && {
      [TYPES_FILE]: descriptorTypes(parsed.value, { generator: `${brand} ext types` }),
    }),
    ...files,
    "README.md": readme({ id, brand, publisher, group, lang }),
  };
}

/** The name and description of the npm package a skeleton is. */
interface NpmPackage {
  readonly name: string;
  readonly description: string;
}

/**
 * The package.json of a Node skeleton: the runtime is a `file:` dependency
 * on its tarball in vendor/, bundled, so that `npm install` keeps it and
 * `npm pack` and `npm publish` ship it, and `files` names what is published,
 * which is what Rukh signs.
 */
function npmManifest(
  npmPackage: NpmPackage,
  files: readonly string[],
  scripts: Record<string, string>,
  devDependencies?: Record<string, string>,
): string {
  const manifest = {
    name: npmPackage.name,
    version: "0.1.0",
    description: npmPackage.description,
    type: "module",
    files: [...files, "rukh-extension.json", "rukh-signature.json"],
    scripts,
    dependencies: { "@rukh/ipc": `file:${runtimeArchive()}` },
    bundleDependencies: ["@rukh/ipc"],
    ...(devDependencies !== undefined && { devDependencies }),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** A JavaScript package: ES modules, type-checked by editors through JSDoc. */
function jsFiles(identity: string, npmPackage: NpmPackage): Record<string, string> {
  return {
    // The program imports its handlers from src/, so both are published.
    "package.json": npmManifest(npmPackage, ["bin", "src"], { test: "node --test" }),
    "bin/hello.mjs": `// The command process: the host starts it, and the runtime calls the handler.
import { runCommandProcess } from "@rukh/ipc";
import { handlers } from "../src/handlers.mjs";

await runCommandProcess({ handlers });
`,
    "src/handlers.mjs": `// @ts-check
// One handler per command, by its identity. \`ctx.inputs\` holds the inputs the
// host already validated against the descriptor; their types come from
// rukh-types.d.ts, which \`ext types\` regenerates after a descriptor change.
import { textResult } from "@rukh/ipc";

/** @type {import("../rukh-types.js").Handlers} */
export const handlers = {
  ${identity}: (ctx) => textResult(\`Hello, \${ctx.inputs.name}!\\n\`),
};
`,
    "test/hello.test.mjs": helloTest("../src/handlers.mjs", identity),
    "tsconfig.json": tsconfig({ allowJs: true, checkJs: true, noEmit: true }, ["src", "bin"]),
  };
}

/**
 * A TypeScript package: sources in src/, compiled by tsc into bin/, which is
 * what runs. `ext init` writes bin/ with the code tsc produces, so the package validates,
 * installs and runs before anything is built; `npm install` brings the
 * pinned compiler for `npm run build`.
 */
function tsFiles(identity: string, npmPackage: NpmPackage): Record<string, string> {
  const handlers = (
    typed: boolean,
  ) => `// One handler per command, by its identity. \`ctx.inputs\` holds the inputs the
// host already validated against the descriptor; their types come from
// rukh-types.d.ts, which \`ext types\` regenerates after a descriptor change.
import { textResult } from "@rukh/ipc";
${typed ? 'import type { Handlers } from "../rukh-types.js";\n' : ""}
export const handlers${typed ? ": Handlers" : ""} = {
  ${identity}: (ctx) => textResult(\`Hello, \${ctx.inputs.name}!\\n\`),
};
`;
  const main = `// The command process: the host starts it, and the runtime calls the handler.
import { runCommandProcess } from "@rukh/ipc";
import { handlers } from "./handlers.js";

await runCommandProcess({ handlers });
`;
  return {
    "package.json": npmManifest(
      npmPackage,
      ["bin"],
      { build: "tsc", test: "node --test" },
      { typescript: TYPESCRIPT_VERSION },
    ),
    "src/hello.ts": main,
    "src/handlers.ts": handlers(true),
    "bin/hello.js": main,
    "bin/handlers.js": handlers(false),
    "test/hello.test.mjs": helloTest("../bin/handlers.js", identity),
    // A failed compile leaves the last good bin/ in place.
    "tsconfig.json": tsconfig({ rootDir: "src", outDir: "bin", noEmitOnError: true }, ["src"]),
  };
}

/**
 * A Python package: a native program (its shebang finds python3) beside its
 * handlers and the vendored single-file runtime, which `ext init` copies in.
 * Nothing writes bytecode into the package, whose every file is published.
 */
function pythonFiles(identity: string): Record<string, string> {
  return {
    "bin/hello.py": `#!/usr/bin/env python3
"""The command process: the host starts it, and the runtime calls the handler."""
import sys

sys.dont_write_bytecode = True

from handlers import HANDLERS  # noqa: E402
from rukh_ipc import run_command_process  # noqa: E402

run_command_process(HANDLERS)
`,
    "bin/handlers.py": `"""One handler per command, by its identity. ctx.inputs holds the inputs the
host already validated against the descriptor."""
from rukh_ipc import text_result


def hello(ctx):
    return text_result("Hello, %s!\\n" % ctx.inputs["name"])


HANDLERS = {${identity}: hello}
`,
    "test/test_hello.py": `import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bin"))

from handlers import HANDLERS  # noqa: E402


class Context:
    inputs = {"name": "Ada"}


class HelloTest(unittest.TestCase):
    def test_greets_by_name(self):
        result = HANDLERS[${identity}](Context())
        self.assertEqual(result.command_result, {"kind": "text", "text": "Hello, Ada!\\n"})


if __name__ == "__main__":
    unittest.main()
`,
  };
}

/** A shell package: a passthrough script and a test that runs it. */
function shFiles(): Record<string, string> {
  return {
    "bin/hello.sh": `#!/bin/sh
# A passthrough program: it gets every word after its command path, shares
# the terminal, and its exit status is the command's.
if [ "$#" -eq 0 ]; then
  echo "usage: hello <name>" >&2
  exit 2
fi
printf 'Hello, %s!\\n' "$1"
`,
    "test/hello.test.sh": `#!/bin/sh
# The script's own test: sh test/hello.test.sh
set -eu
here=$(dirname "$0")
[ "$(sh "$here/../bin/hello.sh" Ada)" = "Hello, Ada!" ] || { echo "FAIL: greets by name" >&2; exit 1; }
if sh "$here/../bin/hello.sh" 2>/dev/null; then echo "FAIL: needs a name" >&2; exit 1; fi
echo "ok"
`,
  };
}

function tsconfig(options: Record<string, unknown>, include: string[]): string {
  const compilerOptions = {
    target: "es2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    types: [],
    ...options,
  };
  return `${JSON.stringify({ compilerOptions, include: [...include, "rukh-types.d.ts"] }, null, 2)}\n`;
}

function helloTest(handlers: string, identity: string): string {
  return `import assert from "node:assert/strict";
import { test } from "node:test";
import { handlers } from "${handlers}";

test("hello greets by name", () => {
  const result = handlers[${identity}]({ inputs: { name: "Ada" } });
  assert.deepEqual(result, { commandResult: { kind: "text", text: "Hello, Ada!\\n" } });
});
`;
}

/** What a new package's README names: the extension, its publisher and group, the brand and the language. */
interface ReadmeSubject {
  readonly id: string;
  readonly brand: string;
  readonly publisher: string;
  readonly group: string;
  readonly lang: SkeletonLanguage;
}

function readme({ id, brand, publisher, group, lang }: ReadmeSubject): string {
  // Each line's command and what it is for, the comments aligned in one column.
  const build: [string, string][] =
    lang === "ts"
      ? [
          ["npm install", "the bundled runtime and TypeScript into node_modules/"],
          ["npm run build", "src/*.ts into bin/, type-checked"],
        ]
      : lang === "js"
        ? [["npx -y -p typescript@5 tsc", "optional: type-check the JavaScript"]]
        : [];
  const test: [string, string] =
    lang === "python"
      ? ["python3 -B -m unittest discover -s test", "the handlers' tests"]
      : lang === "sh"
        ? ["sh test/hello.test.sh", "the script's test"]
        : lang === "ts"
          ? ["npm test", "the handlers' tests"]
          : ["node --test", "the handlers' tests"];
  const steps: [string, string][] = [
    ...build,
    test,
    [`${brand} ext validate .`, "every check an install makes"],
    [
      `${brand} keygen ${publisher} --out ..`,
      `once, outside the package: ${publisher}.key (yours alone) and ${publisher}.pub`,
    ],
    [`${brand} ext sign . --key ../${publisher}.key`, "after every change"],
    ...(lang === "ts" || lang === "js"
      ? [["npm pack", "optional: the signed files as npm publishes them"] as [string, string]]
      : []),
    [`${brand} trust add ../${publisher}.pub --publisher ${publisher}`, ""],
    [`${brand} ext install .`, ""],
    [`${brand} ${group} hello Ada`, ""],
  ];
  const width = Math.max(...steps.filter(([, why]) => why !== "").map(([c]) => c.length));
  const commands = steps
    .map(([c, why]) => (why === "" ? c : `${c.padEnd(width)} # ${why}`))
    .join("\n");
  const runtime =
    lang === "sh"
      ? "`bin/hello.sh` runs them: a passthrough program, which gets the words after\nits command as they were typed and is never an MCP tool (a shell cannot speak\nthe authenticated channel)."
      : lang === "python"
        ? "`bin/hello.py` runs them (a native program: its shebang finds `python3`),\nwith the single-file Rukh runtime vendored as `bin/rukh_ipc.py`."
        : `\`bin/hello.${lang === "ts" ? "js" : "mjs"}\` runs them, with the Rukh runtime bundled: package.json depends on
its tarball in \`vendor/\` and bundles it, so \`npm install\` keeps it under
\`node_modules/@rukh/ipc\` and \`npm publish\` ships it. Add a dependency your
handlers import with \`npm install --save-bundle <name>\`, so it is shipped too.`;
  const types =
    lang === "python" || lang === "sh"
      ? ""
      : `\n\`rukh-types.d.ts\` types each command's inputs and result; after changing the
descriptor, regenerate it with \`${brand} ext types .\`.\n`;
  return `# ${id}

An extension for ${brand}. The commands are declared in \`rukh-extension.json\`;
${runtime}
${lang === "ts" || lang === "js" ? "What npm publishes of it (the `files` of package.json, the README and the\nbundled runtime) is what is signed." : "Every file in this directory is part of the package."}
${types}
\`\`\`sh
${commands}
\`\`\`

While you work, \`${brand} ext link .\` runs the package from this directory
instead, unsigned and for you only: each edit applies on the next call
(\`${brand} ext unlink ${id}\` before installing the signed package).
`;
}
