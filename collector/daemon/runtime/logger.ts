/**
 * Structured logging: one JSON object per line, to stderr and optionally to a daily log file.
 *
 * @module
 */
import type { LogLevel } from "@kiro-learn/core/settings";

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A minimal structured logger. */
export interface Logger {
  /** Logs at debug level. */
  debug(msg: string, fields?: Record<string, unknown>): void;
  /** Logs at info level. */
  info(msg: string, fields?: Record<string, unknown>): void;
  /** Logs at warn level. */
  warn(msg: string, fields?: Record<string, unknown>): void;
  /** Logs at error level. */
  error(msg: string, fields?: Record<string, unknown>): void;
  /** True when debug lines are written (skip building costly fields otherwise). */
  readonly debugEnabled: boolean;
}

/** Where log lines go. */
export interface LoggerOptions {
  /** Lowest level written. */
  level: LogLevel;
  /** Directory for `collector-YYYY-MM-DD.log` files; none means stderr only. */
  logDir?: string;
  /** Also write to stderr (default true). */
  stderr?: boolean;
}

const encoder = new TextEncoder();

/** Creates a logger writing JSON lines. */
export function createLogger(options: LoggerOptions): Logger {
  const min = LEVELS[options.level];
  const toStderr = options.stderr ?? true;
  let file: { day: string; handle: Deno.FsFile } | undefined;
  function write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    if (LEVELS[level] < min) return;
    const ts = new Date().toISOString();
    const line = encoder.encode(JSON.stringify({ ts, level, msg, ...fields }) + "\n");
    if (toStderr) {
      try {
        Deno.stderr.writeSync(line);
      } catch {
        // A closed stderr (detached daemon) must never take the process down.
      }
    }
    if (options.logDir) {
      const day = ts.slice(0, 10);
      try {
        if (file?.day !== day) {
          file?.handle.close();
          file = {
            day,
            handle: Deno.openSync(`${options.logDir}/collector-${day}.log`, {
              append: true,
              create: true,
              mode: 0o600,
            }),
          };
        }
        file.handle.writeSync(line);
      } catch {
        // Logging is best effort; the data path does not depend on it.
      }
    }
  }
  return {
    debug: (msg, fields) => write("debug", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
    debugEnabled: min <= LEVELS.debug,
  };
}

/** A logger that drops everything (tests, benchmarks). */
export function silentLogger(): Logger {
  const noop = () => {};
  return { debug: noop, info: noop, warn: noop, error: noop, debugEnabled: false };
}
