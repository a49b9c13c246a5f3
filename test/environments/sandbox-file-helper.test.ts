import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { EnvironmentManager, findExecutable, loadProviderRegistry } from '../../src/environments/index.js';
import { testSetup } from './helpers.js';
import { processesWith, survivorsOf } from '../helpers/processes.js';

const hasBwrap = process.platform === 'linux' && findExecutable('bwrap') !== undefined;

const managers: EnvironmentManager[] = [];
afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.closeAll()));
});

async function sandbox(session: string) {
  const setup = testSetup({ terminal: { backend: 'sandbox', container_persistent: false } });
  const { registry } = await loadProviderRegistry(setup);
  const manager = new EnvironmentManager({ ...setup, registry });
  managers.push(manager);
  return { manager, environment: await manager.environmentFor(session) };
}

/** The start time (in clock ticks since boot) of the process that read its own /proc/self/stat. */
function startTime(stat: Buffer): string {
  const fields = stat.toString('latin1').split(') ')[1]?.split(' ') ?? [];
  return fields[19] ?? '';
}

describe.runIf(hasBwrap || process.env.CI === 'true')('the sandbox\'s resident file helper (real bubblewrap)', () => {
  it('serves every read and write from one process inside the sandbox, not a process per call', async () => {
    const { environment } = await sandbox('helper-one');
    const first = await environment.readFile!('/proc/self/stat');
    await environment.writeFile!('note.txt', 'hello\n');
    const second = await environment.readFile!('/proc/self/stat');
    expect(startTime(first)).not.toBe('');
    expect(startTime(second)).toBe(startTime(first));
    // A command is still a process of its own: the helper is not what runs commands.
    const command = await environment.execute('cat /proc/self/stat');
    expect(startTime(Buffer.from(command.output))).not.toBe(startTime(first));
    // What the helper wrote, a command there and the host both see.
    expect(readFileSync(`${environment.cwd}/note.txt`, 'utf8')).toBe('hello\n');
    expect((await environment.execute('cat note.txt')).output).toBe('hello\n');
  });

  it('reaches what a command reaches and fails as node:fs would', async () => {
    const { environment } = await sandbox('helper-errors');
    await expect(environment.readFile!('/no/such/file')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(environment.readFile!('/usr')).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(environment.writeFile!('/usr/hermes-probe', 'x')).rejects.toMatchObject({ code: 'EROFS' });
    await environment.writeFile!('big.txt', 'x'.repeat(100));
    await expect(environment.readFile!('big.txt', { maxBytes: 10 })).rejects.toMatchObject({ code: 'EFBIG' });
    expect((await environment.execute('mkfifo pipe && echo made')).output).toBe('made\n');
    await expect(environment.readFile!('pipe')).rejects.toMatchObject({ code: 'EIO' });
    // The home of the gateway's user is not part of the view: the helper does not see it either.
    await expect(environment.readFile!('/root/.bashrc')).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOENT|EACCES)$/) });
  });

  it('starts again after an aborted read, and the next read is served', async () => {
    const { environment } = await sandbox('helper-abort');
    await environment.writeFile!('a.txt', 'a');
    const stop = new AbortController();
    stop.abort('stopped by the test');
    await expect(environment.readFile!('a.txt', { signal: stop.signal })).rejects.toThrow();
    expect((await environment.readFile!('a.txt')).toString()).toBe('a');
  });

  it('ends with the environment: nothing of it is left once the environment is cleaned up', async () => {
    const { manager, environment } = await sandbox('helper-ends');
    await environment.readFile!('/proc/self/stat');
    // The workspace's path is a word of bubblewrap's argv (its --bind and --chdir).
    expect(processesWith(environment.cwd).length).toBeGreaterThan(0);
    await manager.closeAll();
    expect(await survivorsOf(environment.cwd)).toEqual([]);
  });
});
