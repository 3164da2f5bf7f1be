// The files of a new extension package (`ext init`): a descriptor that
// points editors at the JSON Schema, one command with a typed input, its
// handler kept apart from the process entry so a plain `node --test` can call
// it, a test, and a README that walks through validate, sign and install.

/** The languages `ext init` can write a skeleton in. */
export const SKELETON_LANGUAGES = ["js"] as const;

/** The files of a new package for extension `id` (`<publisher>.<name>`), by path. */
export function skeletonFiles(id: string, brand: string): Record<string, string> {
  const publisher = id.slice(0, id.indexOf("."));
  const group = id.slice(id.lastIndexOf(".") + 1);
  const descriptor = {
    $schema: "https://rukh.dev/schemas/rukh.extension.schema.json",
    format: "rukh.extension/2",
    id,
    version: "0.1.0",
    publisher,
    summary: `The ${group} commands`,
    groups: [{ path: [group], summary: `Commands of ${id}` }],
    commands: [
      {
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
          program: "bin/hello.mjs",
          runtime: "node",
          result: { kind: "text" },
        },
        machine: {
          eligible: true,
          interaction: "none",
          requiredFeatures: ["rukh.command-result/1"],
        },
      },
    ],
  };
  return {
    "rukh-extension.json": `${JSON.stringify(descriptor, null, 2)}\n`,
    "bin/hello.mjs": `// The command process: the host starts it, and the runtime calls the handler.
import { runCommandProcess } from "@rukh/ipc";
import { handlers } from "../src/handlers.mjs";

await runCommandProcess({ handlers });
`,
    "src/handlers.mjs": `// One handler per command, by its identity. \`ctx.inputs\` holds the inputs the
// host already validated against the descriptor.
import { textResult } from "@rukh/ipc";

export const handlers = {
  /** @param {{ inputs: { name: string } }} ctx */
  ${JSON.stringify(`${id}/hello`)}: (ctx) => textResult(\`Hello, \${ctx.inputs.name}!\\n\`),
};
`,
    "test/hello.test.mjs": `import assert from "node:assert/strict";
import { test } from "node:test";
import { handlers } from "../src/handlers.mjs";

test("hello greets by name", () => {
  const result = handlers[${JSON.stringify(`${id}/hello`)}]({ inputs: { name: "Ada" } });
  assert.deepEqual(result, { commandResult: { kind: "text", text: "Hello, Ada!\\n" } });
});
`,
    "README.md": `# ${id}

An extension for ${brand}. The commands are declared in \`rukh-extension.json\`;
\`bin/hello.mjs\` runs them, with the Rukh runtime vendored under
\`node_modules/@rukh/ipc\` (one file, nothing to install).

\`\`\`sh
node --test                                   # the handlers' tests
${brand} ext validate .                       # every check an install makes
${brand} keygen ${publisher} --out ..         # once, outside the package: ${publisher}.key (yours alone) and ${publisher}.pub
${brand} ext sign . --key ../${publisher}.key # after every change
${brand} trust add ../${publisher}.pub --publisher ${publisher}
${brand} ext install .
${brand} ${group} hello Ada
\`\`\`
`,
  };
}
