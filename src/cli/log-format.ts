import { normalizeLevel } from '../shared/logger.js';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_VALUES: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** pino's number for a level name such as `DEBUG`; undefined when the name is unknown. */
export function levelValue(name: string): number | undefined {
  const level = normalizeLevel(name);
  return level ? LEVEL_VALUES[level] : undefined;
}

const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

/**
 * One pino JSON line as `2026-11-30 08:40:01.123 INFO  [session=… tool=…] message {rest}`,
 * or null when it is below `minLevel`. Lines that are not JSON are shown as they are.
 */
export function formatLogLine(line: string, minLevel: number): string | null {
  if (!line.trim()) return null;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = typeof entry.level === 'number' ? entry.level : 30;
  if (level < minLevel) return null;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().replace('T', ' ').slice(0, 23) : '';
  const bindings: string[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (SKIP.has(key)) continue;
    if (['session', 'tool', 'platform'].includes(key)) bindings.push(`${key}=${String(value)}`);
    else rest[key] = value;
  }
  const name = (LEVEL_NAMES[level] ?? String(level)).padEnd(5);
  const scope = bindings.length > 0 ? ` [${bindings.join(' ')}]` : '';
  const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
  return `${time} ${name}${scope} ${String(entry.msg ?? '')}${extra}`;
}
