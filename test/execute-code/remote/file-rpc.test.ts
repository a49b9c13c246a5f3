import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalEnvironment } from '../../../src/environments/index.js';
import { FileRpcPoller } from '../../../src/execute-code/remote/index.js';
import { tempDir } from '../../helpers/tool-context.js';

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The poller works through any Environment's `execute`; a local one makes its folder this host's. */
function setup() {
  const dir = tempDir('hermes-filerpc-test-');
  made.push(dir);
  mkdirSync(join(dir, 'rpc'));
  const environment = new LocalEnvironment({ cwd: dir, timeout: 30, childEnv: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' }) });
  const calls: unknown[] = [];
  const poller = new FileRpcPoller({
    environment,
    dir,
    token: 'good-token',
    handler: async (tool, args) => (calls.push({ tool, args }), { ok: tool }),
    maxOutputBytes: 50_000,
    doneTest: '[ -e ../done ]',
    waitMs: 50,
  });
  const request = (name: string, body: string) => {
    writeFileSync(join(dir, 'rpc', `.tmp_${name}`), body);
    renameSync(join(dir, 'rpc', `.tmp_${name}`), join(dir, 'rpc', name));
  };
  return { dir, poller, calls, request };
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await sleep(25);
}

describe('FileRpcPoller', () => {
  it('answers a valid request with res_NNNNNN, mode 0600', async () => {
    const { dir, poller, calls, request } = setup();
    poller.start();
    request('req_000001', JSON.stringify({ id: 1, tool: 'read_file', args: { path: 'a' }, token: 'good-token' }));
    const answer = join(dir, 'rpc', 'res_000001');
    await waitFor(() => existsSync(answer));
    expect(JSON.parse(readFileSync(answer, 'utf8'))).toEqual({ id: 1, result: { ok: 'read_file' } });
    expect(statSync(answer).mode & 0o777).toBe(0o600);
    expect(calls).toEqual([{ tool: 'read_file', args: { path: 'a' } }]);
    writeFileSync(join(dir, 'done'), '');
    await poller.finished();
    expect(poller.done).toBe(true);
  });

  it('deletes requests with a bad token, bad JSON or a bad or repeated sequence unanswered', async () => {
    const { dir, poller, calls, request } = setup();
    poller.start();
    request('req_000001', JSON.stringify({ id: 1, tool: 'read_file', args: {}, token: 'wrong' }));
    request('req_000002', '{not json');
    request('req_000003', JSON.stringify({ id: 4, tool: 'read_file', args: {}, token: 'good-token' }));
    request('req_000005', JSON.stringify({ id: 5, tool: 'read_file', args: {}, token: 'good-token' }));
    await waitFor(() => existsSync(join(dir, 'rpc', 'res_000005')));
    request('req_000005', JSON.stringify({ id: 5, tool: 'read_file', args: {}, token: 'good-token' }));
    await waitFor(() => poller.rejected.length === 4);
    writeFileSync(join(dir, 'done'), '');
    await poller.stop();
    expect(poller.rejected.sort()).toEqual(['bad JSON', 'bad sequence', 'bad sequence', 'bad token']);
    expect(calls).toHaveLength(1);
    for (const name of ['res_000001', 'res_000002', 'res_000003']) expect(existsSync(join(dir, 'rpc', name))).toBe(false);
    for (const name of ['req_000001', 'req_000002', 'req_000003']) expect(existsSync(join(dir, 'rpc', name))).toBe(false);
  });

  it('fetches a request larger than one poll may print in chunks', async () => {
    const { dir, poller, calls, request } = setup();
    poller.start();
    const content = 'x'.repeat(120_000);
    request('req_000001', JSON.stringify({ id: 1, tool: 'write_file', args: { content }, token: 'good-token' }));
    await waitFor(() => existsSync(join(dir, 'rpc', 'res_000001')));
    writeFileSync(join(dir, 'done'), '');
    await poller.stop();
    expect(calls).toEqual([{ tool: 'write_file', args: { content } }]);
  });
});
