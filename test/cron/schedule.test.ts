import { describe, expect, it } from 'vitest';
import { CronError, nextRunAfter, parseSchedule } from '../../src/cron/index.js';

describe('job schedules', () => {
  it('reads "every <n><unit>" as a fixed interval', () => {
    expect(parseSchedule('every 2s', 1)).toMatchObject({ kind: 'every', ms: 2000, text: 'every 2s' });
    expect(parseSchedule('every 30m', 1)).toMatchObject({ kind: 'every', ms: 30 * 60_000, text: 'every 30m' });
    expect(parseSchedule('Every 2 hours', 1)).toMatchObject({ kind: 'every', ms: 2 * 3_600_000, text: 'every 2h' });
    expect(nextRunAfter(parseSchedule('every 2h', 1), 1000)).toBe(1000 + 7_200_000);
  });

  it('reads five-field cron expressions minute first and six-field ones seconds first', () => {
    const weekdays = parseSchedule('0 9 * * 1-5', 1);
    const next = new Date(nextRunAfter(weekdays, new Date(2026, 11, 5, 12).getTime())!); // a Saturday
    expect([next.getDay(), next.getHours(), next.getMinutes()]).toEqual([1, 9, 0]);
    const everyTwoSeconds = parseSchedule('*/2 * * * * *', 1);
    const from = new Date(2026, 0, 1, 0, 0, 1).getTime();
    expect(nextRunAfter(everyTwoSeconds, from)).toBe(new Date(2026, 0, 1, 0, 0, 2).getTime());
  });

  it.each([
    ['every 0s', /interval of 0/],
    ['every 0 minutes', /interval of 0/],
    ['every soon', /write "every <number><s\|m\|h\|d>"/],
    ['every 500ms', /write "every <number><s\|m\|h\|d>"/],
    ['61 * * * *', /not a valid cron expression/],
    ['* * *', /has 3 fields: a cron expression has 5/],
    ['hello', /has 1 field: a cron expression has 5/],
    ['0 0 30 2 *', /never runs/],
    ['', /schedule is empty/],
  ])('refuses %j with a CronError that says what to write', (text, message) => {
    expect(() => parseSchedule(text, 1)).toThrow(CronError);
    expect(() => parseSchedule(text, 1)).toThrow(message);
  });

  it('refuses schedules that run more often than cron.min_interval, intervals and cron expressions alike', () => {
    expect(() => parseSchedule('every 5s', 60)).toThrow(/more often than cron.min_interval allows \(60 s\)/);
    expect(() => parseSchedule('*/10 * * * * *', 60)).toThrow(/more often than cron.min_interval allows/);
    expect(parseSchedule('* * * * *', 60).kind).toBe('cron');
  });
});
