// Where a host's own log lines go: the one logger type both transports take.

/**
 * Where the host's own log lines go (never stdout).
 *
 * @example
 * const logger: McpLogger = { log: (level, message, data) => process.stderr.write(`${level} ${message}\n`) };
 */
export interface McpLogger {
  log(level: "info" | "warn" | "error", message: string, data?: Record<string, unknown>): void;
}

/** A logger that keeps nothing. */
export const NO_LOGGER: McpLogger = { log() {} };
