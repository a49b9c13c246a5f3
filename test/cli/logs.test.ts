import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hermes } from '../helpers/hermes-process.js';

function homeWithLog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-logs-cli-'));
  mkdirSync(join(dir, 'logs'));
  const time = Date.UTC(2026, 10, 30, 8, 0, 0);
  const lines = [
    { level: 20, time, pid: 1, session: 's1', tool: 'execute_code', msg: 'execute_code: dropped 1 non-allowlisted HERMES_* var(s): HERMES_X' },
    { level: 30, time: time + 1000, pid: 1, platform: 'slack', msg: 'started' },
    { level: 50, time: time + 2000, pid: 1, err: { message: 'boom' }, msg: 'turn failed' },
  ];
  writeFileSync(join(dir, 'logs', 'agent.log'), lines.map((line) => JSON.stringify(line)).join('\n') + '\nnot json at all\n');
  return dir;
}

describe('hermes logs', () => {
  it('shows INFO and above readably by default', async () => {
    const run = await hermes(homeWithLog(), ['logs']);
    expect(run.stdout.split('\n').filter(Boolean)).toEqual([
      '2026-11-30 08:00:01.000 INFO  [platform=slack] started',
      '2026-11-30 08:00:02.000 ERROR turn failed {"err":{"message":"boom"}}',
      'not json at all',
    ]);
  });

  it('filters with --level DEBUG and limits with -n', async () => {
    const dir = homeWithLog();
    const debug = await hermes(dir, ['logs', '--level', 'DEBUG']);
    expect(debug.stdout).toContain('DEBUG [session=s1 tool=execute_code] execute_code: dropped 1 non-allowlisted HERMES_* var(s)');
    const last = await hermes(dir, ['logs', '--level', 'debug', '-n', '1']);
    expect(last.stdout).toBe('not json at all\n');
    const bad = await hermes(dir, ['logs', '--level', 'LOUD']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--level: unknown level "LOUD"');
  });
});
