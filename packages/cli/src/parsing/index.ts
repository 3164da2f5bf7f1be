// How the words of a command line are read, by one rule set and nothing
// else (R13). Its steps: the global flags before the command path,
// read into the session (`_globals.ts`); then, after the path, the words
// that are the CLI's own (before a `--`), `--help` anywhere among them, and
// each word as a flag or a positional of the command's declaration, raw
// text per input id for the descriptor to decode (`_lexer.ts`); and an
// input issue restated in command-line terms. It imports the output room.

export { readGlobals } from "./_globals.js";
export type { Lexed } from "./_lexer.js";
export { issueMessage, lex, ownFlags, wantsHelp } from "./_lexer.js";
