import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEnvironment, buildChildEnv, groupAlive, processAlive, signalGroup } from '../../src/environments/index.js';


const env = () =>
  new LocalEnvironment({ cwd: mkdtempSync(join(tmpdir(), 'hermes-local-')), timeout: 10, childEnv: () => buildChildEnv() });

describe('signalGroup', () => {
  it('refuses group ids that would reach our own group or every process', () => {
    for (const pgid of [0, 1, -5, Number.NaN]) expect(() => signalGroup(pgid, 0)).toThrow(RangeError);
  });
});

describe('LocalEnvironment', () => {
  it('runs a command in its cwd and merges stdout and stderr in order', async () => {
    const local = env();
    const result = await local.execute('pwd; echo out; echo err >&2; exit 3');
    expect(result.exit_code).toBe(3);
    expect(result.output).toBe(`${local.cwd}\nout\nerr\n`);
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const local = env();
    const result = await local.execute('sleep 1000 & echo $! > pid; sleep 1000', { timeout: 0.5 });
    expect(result.exit_code).toBe(124);
    expect(result.output).toContain('[Command timed out after 0.5s and was killed]');
    const pid = Number((await local.readFile('pid')).toString());
    expect(processAlive(pid)).toBe(false);
  });

  it('interrupts with the abort reason and leaves no process behind', async () => {
    const local = env();
    const controller = new AbortController();
    const started = local.execute("cut -d' ' -f5 /proc/$$/stat > pgid.tmp && mv pgid.tmp pgid; sleep 1000", { signal: controller.signal });
    // Once the command runs (the supervisor takes a Python start before it): then interrupt it.
    while (!existsSync(join(local.cwd, 'pgid'))) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort('user sent a new message');
    const result = await started;
    expect(result.output).toMatch(/\[execution interrupted — user sent a new message\]$/);
    expect(result.exit_code).toBe(130);
    expect(groupAlive(Number((await local.readFile('pgid')).toString()))).toBe(false);
  });

  it('caps output and keeps head and tail', async () => {
    const local = new LocalEnvironment({ cwd: tmpdir(), timeout: 10, childEnv: () => buildChildEnv(), maxOutputBytes: 1000 });
    const result = await local.execute('echo START; head -c 100000 /dev/zero | tr "\\0" x; echo; echo END');
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith('START\n')).toBe(true);
    expect(result.output.endsWith('END\n')).toBe(true);
    expect(result.output.length).toBeLessThan(1200);
  });

  it('does not wait for a background child that keeps the pipe open', async () => {
    const local = env();
    const started = Date.now();
    const result = await local.execute('sleep 30 & echo started');
    expect(result.output).toBe('started\n');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
