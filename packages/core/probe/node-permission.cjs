"use strict";
// The confinement probe's Node command, run as a strict command would be
// (bubblewrap, then Node with its permission model and reads allowed to this
// directory only): it exits 0 only when this Node denies what a strict
// command must not do and allows what it must. Each Node spells and scopes
// its permission model its own way, so the probe asks the model itself.
const fs = require("node:fs");
const { join } = require("node:path");

const failures = [];
const denied = (what, fn) => {
  try {
    fn();
    failures.push(`${what} was allowed`);
  } catch (error) {
    if (error?.code !== "ERR_ACCESS_DENIED")
      failures.push(`${what} failed with ${error?.code ?? error}, not ERR_ACCESS_DENIED`);
  }
};

try {
  fs.readFileSync(__filename);
} catch (error) {
  failures.push(`reading its own package failed: ${error?.code ?? error}`);
}
denied("reading the Node binary outside its package", () =>
  fs.closeSync(fs.openSync(process.execPath, "r")),
);
denied("writing a temporary file", () =>
  fs.writeFileSync(join(require("node:os").tmpdir(), `rukh-probe-${process.pid}`), "x"),
);
denied("starting a child process", () => require("node:child_process").spawnSync("/bin/true"));
if (failures.length > 0) {
  process.stderr.write(
    `Node ${process.version}'s permission model does not confine: ${failures.join("; ")}\n`,
  );
  process.exit(1);
}
