// A download's progress on a terminal: one line rewritten in place, at most
// ten times a second, and nothing at all when the stream is not a terminal.

/** Where progress goes: a terminal's stderr. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** What {@link downloadProgress} returns: the callback for the download and its end. */
export interface DownloadProgress {
  readonly onProgress: (received: number, total: number | undefined) => void;
  /** Clears the line (call it whether the download succeeded or not). */
  done(): void;
}

function kib(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * Progress of downloading `label` on `stream` when it is a terminal;
 * otherwise callbacks that write nothing.
 *
 * @example
 * const p = downloadProgress(process.stderr, "@jane/hello@1.2.0");
 * try { await downloadTarball(r, npm, { maxBytes, onProgress: p.onProgress }); } finally { p.done(); }
 */
export function downloadProgress(
  stream: ProgressStream,
  label: string,
  now: () => number = Date.now,
): DownloadProgress {
  if (stream.isTTY !== true) return { onProgress: () => {}, done: () => {} };
  let last = 0;
  let shown = false;
  return {
    onProgress(received, total) {
      const t = now();
      if (t - last < 100 && received !== total) return;
      last = t;
      shown = true;
      const of = total === undefined ? "" : ` of ${kib(total)}`;
      stream.write(`\r\x1b[2Kfetching ${label}: ${kib(received)}${of}`);
    },
    done() {
      if (shown) stream.write("\r\x1b[2K");
    },
  };
}
