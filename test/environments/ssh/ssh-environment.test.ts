import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sshdSkipReason } from '../../helpers/sshd.js';
import { connectTo, sshEnvironmentPerGroup } from './helpers.js';
import { waitForPid, waitGone } from '../../helpers/processes.js';

const missing = sshdSkipReason('ssh environment tests');

describe.runIf(!missing)('SshEnvironment against a real sshd', () => {
  const ssh = sshEnvironmentPerGroup('hermes-ssh-work-', { childEnv: { LANG: 'C.UTF-8', PASSED: 'yes', PATH: '/gateway/only', HOME: '/gateway/home' } });

  it('runs a command in the remote working folder and returns its output and exit code', async () => {
    const result = await ssh.env.execute('pwd; echo out; echo err >&2; exit 3');
    expect(result.exit_code).toBe(3);
    expect(result.output).toBe(`${ssh.work}\nout\nerr\n`);
  });

  it('passes stdin and the scrubbed variables, but keeps the remote PATH and HOME', async () => {
    const result = await ssh.env.execute('cat; echo "$PASSED $HOME"; command -v bash', { stdin: 'from stdin\n', env: { EXTRA: '1' } });
    expect(result.output).toBe('from stdin\nyes /root\n/usr/bin/bash\n'.replace('/usr/bin/bash', result.output.trim().split('\n').at(-1)!));
    expect(result.output).not.toContain('/gateway/home');
    expect(result.exit_code).toBe(0);
  });

  it('runs relative cwd options inside the working folder and says when a folder is missing', async () => {
    await ssh.env.execute('mkdir -p sub');
    expect((await ssh.env.execute('pwd', { cwd: 'sub' })).output.trim()).toBe(join(ssh.work, 'sub'));
    const missingFolder = await ssh.env.execute('pwd', { cwd: '/no/such/folder' });
    expect(missingFolder.exit_code).toBe(126);
    expect(missingFolder.output).toContain('/no/such/folder does not exist on the ssh backend');
  });

  it('kills the remote process group on timeout, including background children', async () => {
    const pidFile = join(ssh.work, 'timeout.pids');
    const result = await ssh.env.execute(`sleep 300 & echo $! > ${pidFile}; echo $$ >> ${pidFile}; wait`, { timeout: 1 });
    expect(result.timed_out).toBe(true);
    expect(result.exit_code).toBe(124);
    expect(result.output).toContain('[Command timed out after 1s and was killed]');
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await waitGone(pid)).toBe(true);
  });

  it('kills the remote process group on interrupt and reports the reason', async () => {
    const pidFile = join(ssh.work, 'interrupt.pid');
    const controller = new AbortController();
    const running = ssh.env.execute(`sleep 300 & echo $! > ${pidFile}; wait`, { signal: controller.signal });
    const sleeper = await waitForPid(pidFile);
    controller.abort('user sent a new message');
    const result = await running;
    expect(result.interrupted).toBe(true);
    expect(result.exit_code).toBe(130);
    expect(result.output).toContain('[execution interrupted — user sent a new message]');
    expect(await waitGone(sleeper)).toBe(true);
  });

  it('never puts the command, its variables or its stdin on a command line', async () => {
    const before = ssh.env.commandLines.length;
    await ssh.env.execute('echo secret-command-text', { env: { SOME_VALUE: 'secret-variable-value' }, stdin: 'secret-stdin' });
    const lines = ssh.env.commandLines.slice(before).flat().join(' ');
    expect(lines).not.toContain('secret-command-text');
    expect(lines).not.toContain('secret-variable-value');
    expect(lines).not.toContain('secret-stdin');
    expect(lines).toContain('BatchMode=yes');
    expect(lines).toContain('StrictHostKeyChecking=accept-new');
    expect(lines).toContain('ControlMaster=auto');
  });

  it('cleanup closes the shared connection and removes its socket', async () => {
    const other = await connectTo(ssh.sshd);
    expect(existsSync(other.controlPath)).toBe(true);
    expect(other.cwd).toBe('/root');
    await other.cleanup();
    expect(existsSync(other.controlPath)).toBe(false);
  });

  it('fails to connect with an error that names the backend', async () => {
    await expect(connectTo({ ...ssh.sshd, port: 1 })).rejects.toThrow(/cannot use the ssh backend \(root@127\.0\.0\.1:1\)/);
  });
});
