"use strict";
// Runs before anything else of the CLI is loaded, in syntax any Node since
// 14 parses: on a system or a Node the CLI cannot run on, it says so in one
// line and exits 1, instead of failing later with a stack trace. The release
// lines that are tested are in docs/getting-started.md; `doctor` notes any
// other.
const name = require("node:path").basename(process.argv[1] || "rukh");
const parts = process.versions.node.split(".").map(Number);
const major = parts[0];
const minor = parts[1];
// require() of ES modules without a flag: 20.19 on line 20, 22.12 on line 22, every release from 23.
const runs = major >= 23 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
const refusal =
  process.platform === "win32"
    ? `${name}: Windows is not supported; run ${name} under WSL 2 (Linux) or on macOS`
    : runs
      ? null
      : `${name}: Node.js ${process.version} is too old; ${name} needs Node.js 20.19 or later (20.19+, 22.12+, 24 or 26)`;
if (refusal !== null) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
