// Copies the reference CLI's sources into template/ at build time: the
// scaffold ships the very code the reference CLI runs, never a second copy
// kept by hand.
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const app = fileURLToPath(new URL("../../../apps/reference-cli/", import.meta.url));
const template = fileURLToPath(new URL("../template/", import.meta.url));
rmSync(template, { recursive: true, force: true });
mkdirSync(template, { recursive: true });
// Every source file of the CLI: a module added there is in the scaffold too.
cpSync(`${app}src`, `${template}src`, { recursive: true });
cpSync(`${app}test/cli.test.ts`, `${template}test/cli.test.ts`);
// The gate that refuses an unsupported system or Node before the CLI loads.
cpSync(`${app}bin/node-gate.cjs`, `${template}bin/node-gate.cjs`);
