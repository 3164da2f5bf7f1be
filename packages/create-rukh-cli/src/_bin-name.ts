// The brand's launcher follows its name. A brand is renamed by the one key
// of its package.json `bin`; the build then moves the launcher to
// `bin/<brand>` and points `bin` at it, so nothing (npm, `mcp config`, the
// README) is left naming the old command's file.

/** Where a scaffolded brand keeps the script, run first by `npm run build`. */
export const BIN_NAME_SCRIPT = "scripts/bin-name.mjs";

/** The script's text. */
export const BIN_NAME_SOURCE = `// Keeps the launcher named for the brand: package.json's \`bin\` has one key,
// the brand. When the key was renamed, the launcher moves to bin/<brand> and
// \`bin\` says so. Run by \`npm run build\`; changes nothing when they agree.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const manifest = JSON.parse(readFileSync("package.json", "utf8"));
const entries = typeof manifest.bin === "object" && manifest.bin !== null ? Object.entries(manifest.bin) : [];
if (entries.length !== 1) {
  console.error("package.json: bin must name exactly one command, the brand, e.g. {\\"acme\\": \\"./bin/acme\\"}");
  process.exit(1);
}
const [[name, path]] = entries;
const wanted = \`./bin/\${name}\`;
if (path !== wanted) {
  if (existsSync(wanted)) {
    console.error(\`package.json: bin names \${path} for \${name}, but \${wanted} exists too; remove one\`);
    process.exit(1);
  }
  renameSync(path, wanted);
  manifest.bin = { [name]: wanted };
  writeFileSync("package.json", \`\${JSON.stringify(manifest, null, 2)}\\n\`);
  console.log(\`moved \${path} to \${wanted}: the brand is \${name}\`);
}
`;
