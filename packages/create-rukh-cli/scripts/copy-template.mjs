// Copies the reference CLI's sources into template/ at build time: the
// scaffold ships the very code the reference CLI runs, never a second copy
// kept by hand.
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const app = fileURLToPath(new URL("../../../apps/reference-cli/", import.meta.url));
const template = fileURLToPath(new URL("../template/", import.meta.url));
rmSync(template, { recursive: true, force: true });
mkdirSync(template, { recursive: true });
for (const file of ["src/main.ts", "src/_admin.ts", "bin/rukh", "test/cli.test.ts"]) {
  cpSync(`${app}${file}`, `${template}${file}`);
}
