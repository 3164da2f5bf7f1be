// Where the CLI writes: a stream, and a process stream that ends quietly
// when its reader has gone.

/**
 * Where the CLI writes; `process.stdout`/`process.stderr` fit.
 *
 * @example
 * let text = "";
 * const stdout: CliStream = { write: (s: string) => (text += s), isTTY: false };
 */
export interface CliStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** The terminal's width, when it is one. */
  readonly columns?: number;
}

// One listener per stream, however many CLIs a process creates.
const safeStreams = new WeakMap<NodeJS.WriteStream, CliStream>();

/**
 * A process stream as the CLI writes to it: once its reader has gone (`acme
 * docs | head`), the rest of the output is dropped without a word, as a
 * pipeline expects, instead of ending the process with an EPIPE stack trace.
 * Any other write error still ends the process.
 *
 * @example
 * const stdout = readerSafe(process.stdout);
 */
export function readerSafe(stream: NodeJS.WriteStream): CliStream {
  let safe = safeStreams.get(stream);
  if (safe === undefined) {
    let gone = false;
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") gone = true;
      // Another error is the business of whoever else listens (an MCP host's channel);
      // with nobody else, it ends the process as it would without this listener.
      else if (stream.listenerCount("error") === 1) throw e;
    });
    safe = {
      write: (text: string) => gone || stream.write(text),
      get isTTY() {
        return stream.isTTY;
      },
      get columns() {
        return stream.columns;
      },
    };
    safeStreams.set(stream, safe);
  }
  return safe;
}
