import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sshdSkipReason } from '../../helpers/sshd.js';
import { connectTo, sshEnvironmentPerGroup } from './helpers.js';

const missing = sshdSkipReason('ssh limits tests');

const MiB = 1024 * 1024;

describe.runIf(!missing)('terminal.limits on the ssh backend, against a real sshd (as its hostile command would test them)', () => {
  const ssh = sshEnvironmentPerGroup('hermes-ssh-limits-', {
    timeout: 30,
    limits: { processes: 256, memory: 256 * MiB, fileSize: 1 * MiB, cpuTime: 0, openFiles: 64 },
  });

  it('stops a write at the file size limit', async () => {
    const result = await ssh.env.execute('head -c 3000000 /dev/zero > big; echo "rc=$?"');
    expect(result.output).toMatch(/rc=[1-9]/);
    expect(statSync(join(ssh.work, 'big')).size).toBeLessThanOrEqual(MiB);
  });

  it('refuses memory past the limit', async () => {
    const result = await ssh.env.execute('python3 -c "b = bytearray(600 * 1024 * 1024); print(len(b))"');
    expect(result.exit_code).not.toBe(0);
    expect(result.output).toContain('MemoryError');
  });

  it('caps open files and CPU time (the timeout), and a command cannot raise them again', async () => {
    const result = await ssh.env.execute('ulimit -n; ulimit -t; ulimit -c; ulimit -n 100000 && echo raised || echo refused');
    const lines = result.output.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual(['64', '30', '0']);
    expect(lines.at(-1)).toBe('refused');
  });

  it('ends a CPU-bound loop at its CPU time (terminal.limits.cpu_time), long before its timeout', async () => {
    const cpu = await connectTo(ssh.sshd, { cwd: ssh.work, timeout: 60, limits: { processes: 256, memory: 256 * MiB, fileSize: MiB, cpuTime: 1, openFiles: 64 } });
    try {
      const started = Date.now();
      const result = await cpu.execute('python3 -c "while True: pass"; echo "rc=$?"');
      // 152 = 128 + SIGXCPU: the kernel's signal, not the gateway's timeout (which would say so).
      expect(result.output).toContain('rc=152');
      expect(result.timed_out).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      await cpu.cleanup();
    }
  });

  it('gives a stream (a kernel, the file helper) the limits but no CPU time of one command', async () => {
    const stream = ssh.env.openStream('ulimit -n; ulimit -f; ulimit -t');
    let out = '';
    stream.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stream.stdin.end();
    await stream.exited;
    expect(out.trim().split('\n')).toEqual(['64', '1024', 'unlimited']);
  });
});
