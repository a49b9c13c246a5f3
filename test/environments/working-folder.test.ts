import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveWorkingFolder } from '../../src/environments/working-folder.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { hermes } from '../helpers/hermes-process.js';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A folder that looks like a clone of the project: a git repository with one commit. */
function clone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-clone-'));
  writeFileSync(join(dir, 'package.json'), '{"name":"a-clone"}\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'first');
  return dir;
}

function gitStatus(dir: string): string {
  return execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: dir, encoding: 'utf8' });
}

describe('the working folder is HERMES_HOME/workspace unless terminal.cwd says otherwise', () => {
  it('unset terminal.cwd is HERMES_HOME/workspace (made), not the folder the gateway runs in; a set one wins', () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-wf-'));
    const folder = resolveWorkingFolder(null, { home });
    expect(folder).toEqual({ cwd: join(home, 'workspace') });
    expect(existsSync(join(home, 'workspace'))).toBe(true);
    expect(folder.cwd).not.toBe(process.cwd());
    expect(resolveWorkingFolder(tmpdir(), { home })).toEqual({ cwd: tmpdir() });
    const missing = resolveWorkingFolder('/no/such/folder', { home });
    expect(missing.cwd).toBe(join(home, 'workspace'));
    expect(missing.note).toContain(`run in ${join(home, 'workspace')} instead`);
  });

  it('hermes exec, like python, runs a script in the folder it is started in (the gateway and hermes chat do not)', async () => {
    const repo = clone();
    const home = mkdtempSync(join(tmpdir(), 'hermes-wf-home-'));
    const run = await hermes(home, ['exec', '-c', 'import os\nprint(os.getcwd())'], { cwd: repo });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(realpathSync(repo));
  }, 60_000);

  it('hermes chat started inside a clone: the agent\'s write_file lands in HERMES_HOME/workspace, not in the clone', async () => {
    fake = await startFakeOpenAI();
    const repo = clone();
    const home = mkdtempSync(join(tmpdir(), 'hermes-wf-chat-'));
    writeFileSync(join(home, 'config.yaml'), `model:\n  base_url: ${fake.url}\n  name: fake-model\n  max_retries: 0\n  stream: false\n`);
    fake.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'report.md', content: '# made by the agent\n' } }] }, { text: 'Written.' });
    const run = await hermes(home, ['chat'], { cwd: repo, stdin: 'write the report\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Written.');
    expect(readFileSync(join(home, 'workspace/report.md'), 'utf8')).toBe('# made by the agent\n');
    expect(gitStatus(repo)).toBe('');
  }, 60_000);
});
