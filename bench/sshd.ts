/*
 * A throwaway sshd on 127.0.0.1 for benchmarks (root, generated keys, like
 * test/helpers/sshd.ts, which the build does not include).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface BenchSshd {
  port: number;
  /** The user's private key. */
  key: string;
  dir: string;
  stop(): void;
}

/** Why no sshd can run here, or undefined. */
export function benchSshdUnavailable(): string | undefined {
  const sshd = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((path) => existsSync(path));
  if (!sshd) return 'sshd is not installed';
  if (process.getuid?.() !== 0) return 'needs root to start sshd';
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts sshd and waits until it listens; call benchSshdUnavailable() first. */
export async function startBenchSshd(): Promise<BenchSshd> {
  const sshd = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((path) => existsSync(path)) ?? 'sshd';
  const dir = mkdtempSync(join(tmpdir(), 'hermes-bench-sshd-'));
  mkdirSync('/run/sshd', { recursive: true });
  for (const name of ['host', 'user']) spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, name)]);
  // SHLVL=1: the login bash skips ~/.bashrc, whose cost is this machine's, not the transport's.
  writeFileSync(join(dir, 'authorized_keys'), `environment="SHLVL=1" ${readFileSync(join(dir, 'user.pub'), 'utf8')}`);
  const port = await freePort();
  writeFileSync(
    join(dir, 'config'),
    [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host')}`, `PidFile ${join(dir, 'pid')}`, 'UsePAM no',
      'PermitRootLogin prohibit-password', `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, 'StrictModes no',
      // Stream-local forwarding: the SSH direct channel (ssh -R of the RPC socket) needs it.
      'PermitUserEnvironment SHLVL', 'MaxSessions 50', 'AllowStreamLocalForwarding yes', 'StreamLocalBindUnlink yes', ''].join('\n'),
  );
  const child = spawn(sshd, ['-D', '-e', '-f', join(dir, 'config')], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    await sleep(25);
  }
  return { port, key: join(dir, 'user'), dir, stop: () => (child.kill(), rmSync(dir, { recursive: true, force: true })) };
}
