import { dirname } from 'node:path';
import { pino, destination, type Logger, type LevelWithSilent } from 'pino';
import { PRIVATE_FILE_MODE, privateFile, privateFolder } from './private-files.js';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** Accepts `DEBUG`, `debug`, `warning`… and returns pino's name, or undefined. */
export function normalizeLevel(level: string | undefined): LevelWithSilent | undefined {
  if (!level) return undefined;
  const lower = level.trim().toLowerCase();
  if (lower === 'warning') return 'warn';
  if (lower === 'silent' || (LOG_LEVELS as readonly string[]).includes(lower)) return lower as LevelWithSilent;
  return undefined;
}

export interface LoggerOptions {
  file?: string;
  level?: string;
  /** The settings' environment, for HERMES_LOG_LEVEL; none when not given. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Write each line as it is logged. For short-lived commands (`hermes exec`): nothing is
   * buffered, so nothing is flushed at exit — pino's exit flush of a buffered destination
   * also fsyncs the file, which costs a one-shot command tens of milliseconds. The gateway
   * keeps the buffered destination (written in the background, flushed and fsynced at exit).
   */
  sync?: boolean;
}

/**
 * The gateway's logger: JSON lines appended to `file` (HERMES_HOME/logs/agent.log, 0600 in a 0700 logs/).
 * `HERMES_LOG_LEVEL` wins over the configured level.
 */
export function createLogger(options: LoggerOptions): Logger {
  const env = options.env ?? {};
  const level = normalizeLevel(env.HERMES_LOG_LEVEL) ?? normalizeLevel(options.level) ?? 'info';
  if (!options.file) return pino({ level: 'silent' });
  // Logs can hold what people wrote and what tools printed: 0600 in a 0700 folder, an older looser file tightened.
  privateFolder(dirname(options.file));
  privateFile(options.file);
  return pino({ level, base: { pid: process.pid } }, destination({ dest: options.file, sync: options.sync ?? false, mkdir: true, mode: PRIVATE_FILE_MODE }));
}

/** A logger that drops everything; the default for library callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
