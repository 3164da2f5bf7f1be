// Process stdout taken for protocol messages: while a host serves it, any
// other write to it (a stray console.log, a library banner) goes to stderr
// instead of corrupting the protocol.

/** A write that reaches the stream itself, whatever its `write` has been replaced with. */
export type RawWrite = (chunk: Buffer, cb: (err?: Error | null) => void) => unknown;

/** Process stdout while diverted: the write that still reaches it, and how to give it back. */
export interface DivertedStdout {
  readonly write: RawWrite;
  restore(): void;
}

/** Diverts every other write to process stdout to stderr until `restore`. */
export function divertStdout(): DivertedStdout {
  const original = process.stdout.write;
  const write = original.bind(process.stdout) as (
    chunk: Buffer,
    cb: (err?: Error | null) => void,
  ) => boolean;
  process.stdout.write = ((...args: unknown[]) =>
    (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as typeof original;
  return {
    write,
    restore() {
      process.stdout.write = original;
    },
  };
}
