// The global flags of a command line: those before the command path, read
// into the session; a word it does not know is a usage error, and so is a
// command line that is not UTF-8.

import { type Session, usage } from "../output/index.js";
import { undecodableArgument } from "./_bytes.js";

/**
 * Reads the flags before the command path into `s.g`: the words after them,
 * or the exit code of a usage error.
 */
export function readGlobals(s: Session, argv: readonly string[]): readonly string[] | number {
  const g = s.g;
  // --json anywhere among them asks for a mistake among them as JSON too
  // (the word after --home is its value, not the command).
  let end = 0;
  while (end < argv.length && argv[end]!.startsWith("-")) end += argv[end] === "--home" ? 2 : 1;
  g.json = argv.slice(0, end).includes("--json");
  const bad = undecodableArgument(argv);
  if (bad !== undefined)
    return usage(
      s,
      `argument ${bad.index + 1} (${JSON.stringify(argv[bad.index])}) is not valid UTF-8: byte ${bad.offset} is 0x${bad.byte.toString(16).padStart(2, "0")}; expected a UTF-8 command line (MCP refuses the same bytes)`,
      [s.brand, "--help"],
    );
  let i = 0;
  for (; i < argv.length && argv[i]!.startsWith("-"); i++) {
    const t = argv[i]!;
    if (t === "--help" || t === "-h") g.help = true;
    else if (t === "--version" || t === "-V") g.version = true;
    else if (t === "--json") g.json = true;
    else if (t === "--no-color") g.noColor = true;
    else if (t === "--home" && i + 1 < argv.length) g.home = argv[++i]!;
    else if (t.startsWith("--home=")) g.home = t.slice(7);
    else
      return usage(
        s,
        t === "--home"
          ? "--home needs a value; expected --home <dir>"
          : `unknown flag ${t} before the command; expected one of --help, --version, --json, --home <dir>, --no-color`,
        [s.brand, "--help"],
      );
  }
  return argv.slice(i);
}
