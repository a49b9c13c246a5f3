import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type LoopbackServer, outputTail, requireAvailable, skipReasonOutsideCi, waitForPort } from './loopback-server.js';

const SSHD = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((path) => existsSync(path));

/** Why a real sshd cannot run here, or undefined when it can (root, sshd and ssh-keygen present). */
export function sshdUnavailable(): string | undefined {
  if (!SSHD) return 'sshd is not installed (apt-get install openssh-server)';
  if (process.getuid?.() !== 0) return 'sshd must run as root for these tests';
  if (spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error) return 'ssh-keygen is not installed';
  if (spawnSync('ssh', ['-V'], { stdio: 'ignore' }).error) return 'the ssh client is not installed';
  return undefined;
}

/** The reason the sshd tests of `what` skip, printed once, or undefined (under CI=true nothing skips). */
export function sshdSkipReason(what: string): string | undefined {
  return skipReasonOutsideCi(what, sshdUnavailable);
}

export interface TestSshd extends LoopbackServer {
  user: string;
  /** The user's private key. */
  key: string;
  /** The sessions' TMPDIR: what remote commands leave behind shows here, not in the host's /tmp. */
  tmp: string;
}

/**
 * Starts a real sshd on 127.0.0.1 on a free port, with a generated host key and user key in
 * a temp folder; root logs in with the key only. `stop()` kills it and removes the folder.
 */
export async function startSshd(): Promise<TestSshd> {
  requireAvailable(sshdUnavailable);
  const dir = mkdtempSync(join(tmpdir(), 'hermes-sshd-'));
  chmodSync(dir, 0o700);
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = join(dir, 'host_ed25519');
  const key = join(dir, 'user_ed25519');
  for (const path of [hostKey, key]) {
    const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
  }
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp, { mode: 0o700 });
  const authorized = join(dir, 'authorized_keys');
  // SHLVL=1 makes the login bash skip ~/.bashrc (bash sources it for ssh commands only at
  // level 1): this machine's root .bashrc costs ~0.7 s per command and is not under test.
  writeFileSync(authorized, `environment="SHLVL=1",environment="TMPDIR=${tmp}" ${readFileSync(`${key}.pub`, 'utf8')}`);
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      `AuthorizedKeysFile ${authorized}`,
      'StrictModes no',
      'PermitUserEnvironment SHLVL,TMPDIR',
      'MaxSessions 50',
      'MaxStartups 50:30:100',
      'AllowStreamLocalForwarding yes',
      'StreamLocalBindUnlink yes',
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'),
  );
  const child = spawn(SSHD!, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  const said = outputTail(child);
  try {
    await waitForPort(port, child, 'sshd', 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}; sshd said: ${said()}`);
  }
  return {
    host: '127.0.0.1',
    port,
    user: 'root',
    key,
    dir,
    tmp,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
