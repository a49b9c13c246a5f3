import { Cron } from 'croner';
import { CronError } from './errors.js';

/** A job's schedule: a cron expression (croner reads it) or a fixed interval (`every 2h`). */
export type Schedule = { kind: 'cron'; text: string; cron: Cron } | { kind: 'every'; text: string; ms: number };

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const EVERY = /^every\s+(\d+)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)$/i;
/** More than a year between two runs is a typo, not a schedule. */
const MAX_INTERVAL_MS = 366 * UNITS.d;

/**
 * Reads `text` as a schedule: `every <n><s|m|h|d>` (`every 2s`, `every 30m`, `every 2 h`) or a
 * cron expression of five fields (minute first) or six (seconds first). Runs closer together than
 * `minIntervalSeconds` are refused. Throws a CronError that says what was wrong and what to write.
 */
export function parseSchedule(text: string, minIntervalSeconds: number): Schedule {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  if (!trimmed) throw new CronError('CRON_SCHEDULE', 'schedule is empty: give a cron expression ("0 9 * * 1-5") or an interval ("every 2h")');
  const minMs = minIntervalSeconds * 1000;
  if (/^every\b/i.test(trimmed)) {
    const match = EVERY.exec(trimmed);
    if (!match) {
      throw new CronError('CRON_SCHEDULE', `schedule "${trimmed}" is not an interval this understands: write "every <number><s|m|h|d>", e.g. "every 30m"`);
    }
    const ms = Number(match[1]) * UNITS[match[2][0].toLowerCase()];
    if (ms === 0) throw new CronError('CRON_SCHEDULE', `schedule "${trimmed}" is an interval of 0: give at least ${minIntervalSeconds} s (cron.min_interval)`);
    if (ms < minMs) throw new CronError('CRON_SCHEDULE', `schedule "${trimmed}" runs more often than cron.min_interval allows (${minIntervalSeconds} s)`);
    if (ms > MAX_INTERVAL_MS) throw new CronError('CRON_SCHEDULE', `schedule "${trimmed}" is longer than a year: use a cron expression for rare dates`);
    return { kind: 'every', text: `every ${match[1]}${match[2][0].toLowerCase()}`, ms };
  }
  const fields = trimmed.split(' ').length;
  if (fields !== 5 && fields !== 6) {
    throw new CronError(
      'CRON_SCHEDULE',
      `schedule "${trimmed}" has ${fields} field${fields === 1 ? '' : 's'}: a cron expression has 5 (minute hour day month weekday) or 6 (seconds first), or write an interval like "every 2h"`,
    );
  }
  let cron: Cron;
  try {
    cron = new Cron(trimmed, { paused: true, mode: fields === 5 ? '5-part' : '6-part' });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
    throw new CronError('CRON_SCHEDULE', `schedule "${trimmed}" is not a valid cron expression: ${reason}`);
  }
  const [first, second] = cron.nextRuns(2);
  if (!first) throw new CronError('CRON_SCHEDULE', `schedule "${trimmed}" never runs (no such date): check the day and month fields`);
  if (second && second.getTime() - first.getTime() < minMs) {
    throw new CronError('CRON_SCHEDULE', `schedule "${trimmed}" runs more often than cron.min_interval allows (${minIntervalSeconds} s)`);
  }
  return { kind: 'cron', text: trimmed, cron };
}

/** When the job runs next after `after` (ms since the epoch), or undefined when it never will again. */
export function nextRunAfter(schedule: Schedule, after: number): number | undefined {
  if (schedule.kind === 'every') return after + schedule.ms;
  return schedule.cron.nextRun(new Date(after))?.getTime();
}
