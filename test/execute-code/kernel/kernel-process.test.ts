import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KernelProcess, KernelStartError } from '../../../src/execute-code/kernel/index.js';
import { cell, eventually, kernelCommand, processAlive, runKernelTests, startKernel, waitGone } from './helpers.js';

const kernels: KernelProcess[] = [];
async function kernel(options: Parameters<typeof startKernel>[0] = {}) {
  const started = await startKernel(options);
  kernels.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.kill()));
});

/** A cell that starts `sleep 1000`, prints its pid, then blocks. */
const SLEEPER = 'import subprocess, time\nchild = subprocess.Popen(["sleep", "1000"])\nprint(child.pid, flush=True)\ntime.sleep(1000)';

describe.runIf(runKernelTests)('KernelProcess', () => {
  it('keeps state between cells and counts them', async () => {
    const k = await kernel();
    expect(await cell(k, 'x = 41')).toMatchObject({ outcome: { kind: 'ok' }, stdout: '' });
    expect(await cell(k, 'x += 1; print(x)')).toEqual({ outcome: { kind: 'ok' }, stdout: '42\n', stderr: '' });
    expect(k.executionCount).toBe(2);
    expect(k.alive).toBe(true);
  });

  it('reports an exception with the cell line in the traceback and keeps the state', async () => {
    const k = await kernel();
    await cell(k, 'data = [1, 2, 3]');
    const failed = await cell(k, 'print("before")\ntotal = sum(data)\nraise ValueError(f"bad {total}")');
    expect(failed.stdout).toBe('before\n');
    expect(failed.outcome.kind).toBe('exception');
    const traceback = failed.outcome.kind === 'exception' ? failed.outcome.traceback : '';
    expect(traceback).toContain('File "<cell>", line 3, in <module>');
    expect(traceback).toContain('raise ValueError(f"bad {total}")');
    expect(traceback).toMatch(/ValueError: bad 6\n$/);
    expect(traceback).not.toContain('kernel_runner');
    expect(await cell(k, 'print(len(data))')).toMatchObject({ outcome: { kind: 'ok' }, stdout: '3\n' });
  });

  it('reports a syntax error as an exception and runs the next cell', async () => {
    const k = await kernel();
    const failed = await cell(k, 'x = 1\nif x\n  pass');
    expect(failed.outcome).toMatchObject({ kind: 'exception', traceback: expect.stringContaining('SyntaxError') });
    expect(await cell(k, 'print("fine")')).toMatchObject({ outcome: { kind: 'ok' }, stdout: 'fine\n' });
  });

  it('captures print and subprocess output in order, each cell getting its own', async () => {
    const k = await kernel();
    const first = await cell(k, 'import os, sys\nprint("a")\nos.system("echo b")\nprint("c", end="")\nos.system("printf d")\nsys.stderr.write("e\\n")\nos.system("echo f >&2")');
    expect(first).toEqual({ outcome: { kind: 'ok' }, stdout: 'a\nb\ncd', stderr: 'e\nf\n' });
    const second = await cell(k, 'os.system("echo g"); print("h")');
    expect(second).toEqual({ outcome: { kind: 'ok' }, stdout: 'g\nh\n', stderr: '' });
  });

  it('kills a background job its cell left when the cell ends, so it writes nothing later', async () => {
    const k = await kernel();
    const flag = join(mkdtempSync(join(tmpdir(), 'hermes-kernel-')), 'written');
    const first = await cell(k, `import os\nos.system("(sleep 0.3; echo late; touch ${flag}) &")\nprint("now")`);
    expect(first.stdout).toBe('now\n');
    expect(await eventually(() => existsSync(flag), 1000)).toBe(false);
    const second = await cell(k, 'print("next")');
    expect(second.stdout).toBe('next\n');
  });

  it('delivers large output completely and in order', async () => {
    const k = await kernel();
    const run = await cell(k, 'for i in range(100000):\n    print(i)');
    const expected = Array.from({ length: 100000 }, (_, i) => `${i}\n`).join('');
    expect(run.stdout.length).toBe(expected.length);
    expect(run.stdout === expected).toBe(true);
  });

  it('is not fooled by a cell printing a fake control frame or a fake end marker', async () => {
    const k = await kernel();
    const fake =
      'import sys, os\n' +
      'sys.stdout.write("\\x00\\x00\\x00\\x02Xn")\n' +
      'sys.stdout.write("\\x00hermes-cell-end:" + "0" * 32 + "\\x00")\n' +
      'os.write(1, b"\\x00\\x00\\x00\\x01O")\n' +
      'sys.stderr.write("\\x00hermes-cell-end:" + "f" * 32 + "\\x00")\n' +
      'print("still here")';
    const run = await cell(k, fake);
    expect(run.outcome).toEqual({ kind: 'ok' });
    expect(run.stdout).toBe('\0\0\0\x02Xn\0hermes-cell-end:' + '0'.repeat(32) + '\0\0\0\0\x01Ostill here\n');
    expect(run.stderr).toBe('\0hermes-cell-end:' + 'f'.repeat(32) + '\0');
    expect(k.alive).toBe(true);
    expect(await cell(k, 'print("ok")')).toMatchObject({ outcome: { kind: 'ok' }, stdout: 'ok\n' });
  });

  it('shows cells a clean __main__ namespace, no runner descriptors, and the cwd on sys.path', async () => {
    const k = await kernel();
    const names = await cell(k, 'print(sorted(globals()))');
    expect(names.stdout).toBe("['__builtins__', '__doc__', '__loader__', '__name__', '__package__', '__spec__']\n");
    const main = await cell(k, 'import __main__, sys\nprint(__name__, __main__.__dict__ is globals(), sys.argv, sys.path[0] == "")');
    expect(main.stdout).toBe("__main__ True [''] True\n");
    // The control sockets are not at 3 and 4 any more, and no child inherits them.
    const fds = await cell(k, 'import os\nfor fd in (3, 4):\n    try:\n        os.write(fd, b"\\x00\\x00\\x00\\x01O")\n        print(fd, "open")\n    except OSError:\n        print(fd, "closed")\nos.system("echo --; readlink /proc/$$/fd/1 /proc/$$/fd/2; echo --; readlink /proc/$$/fd/*")');
    const [status, std, all] = fds.stdout.split(/\n?--\n/);
    expect(status).toBe('3 closed\n4 closed');
    const [stdoutPipe, stderrPipe] = std.split('\n');
    const targets = all.trim().split('\n');
    // Node's pipes are socket pairs: only fds 1 and 2 may be sockets, once each.
    expect(targets.filter((target) => target.startsWith('socket:') && target !== stdoutPipe && target !== stderrPipe)).toEqual([]);
    expect(targets.filter((target) => target === stdoutPipe)).toHaveLength(1);
    expect(targets.filter((target) => target === stderrPipe)).toHaveLength(1);
    expect(k.alive).toBe(true);
  });

  it('kills the whole process group on timeout, a sleep started by the cell included', async () => {
    const k = await kernel();
    await cell(k, 'kept = 1');
    const run = await cell(k, SLEEPER, { timeoutMs: 2000 });
    expect(run.outcome).toEqual({ kind: 'timeout' });
    const sleeper = Number(run.stdout.trim());
    expect(sleeper).toBeGreaterThan(0);
    expect(processAlive(sleeper)).toBe(false);
    expect(processAlive(k.pid)).toBe(false);
    expect(k.alive).toBe(false);
    expect(await cell(k, 'print(kept)')).toMatchObject({ outcome: { kind: 'died' } });
  });

  it('kills the whole process group on interrupt and reports the reason', async () => {
    const k = await kernel();
    const controller = new AbortController();
    const running = cell(k, SLEEPER, {
      signal: controller.signal,
      onStdout: (chunk) => {
        sleeper = Number(chunk.toString().trim());
        controller.abort('user sent a new message');
      },
    });
    let sleeper = 0;
    const run = await running;
    expect(run.outcome).toEqual({ kind: 'interrupted', reason: 'user sent a new message' });
    expect(sleeper).toBeGreaterThan(0);
    expect(processAlive(sleeper)).toBe(false);
    expect(processAlive(k.pid)).toBe(false);
  });

  it('sends SIGKILL after the grace when a cell traps SIGTERM', async () => {
    const k = await kernel({ graceMs: 300 });
    const run = await cell(k, 'import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint("trapped", flush=True)\ntime.sleep(1000)', { timeoutMs: 2000 });
    expect(run).toMatchObject({ outcome: { kind: 'timeout' }, stdout: 'trapped\n' });
    expect(await waitGone(k.pid)).toBe(true);
  });

  it('ends the kernel on sys.exit() with the exit code', async () => {
    const cases: [string, number | string | null][] = [
      ['sys.exit(3)', 3],
      ['sys.exit()', null],
      ['sys.exit("bye")', 'bye'],
    ];
    for (const [code, expected] of cases) {
      const k = await kernel();
      const run = await cell(k, `import sys\nprint("last words")\n${code}`);
      expect(run.outcome).toEqual({ kind: 'exit', code: expected });
      expect(run.stdout).toBe('last words\n');
      expect(k.alive).toBe(false);
      expect(processAlive(k.pid)).toBe(false);
    }
  });

  it('reports a kernel killed from outside mid-cell as died, with its output so far', async () => {
    const k = await kernel();
    const run = await cell(k, 'import os, time\nprint("started", flush=True)\ntime.sleep(1000)', {
      onStdout: () => process.kill(k.pid, 'SIGKILL'),
    });
    expect(run.outcome).toMatchObject({ kind: 'died', detail: expect.stringContaining('SIGKILL') });
    expect(k.alive).toBe(false);
  });

  it('notices a kernel that died while idle', async () => {
    const k = await kernel();
    process.kill(k.pid, 'SIGKILL');
    expect(await waitGone(k.pid)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(k.alive).toBe(false);
    expect(await cell(k, 'print(1)')).toMatchObject({ outcome: { kind: 'died', detail: expect.stringContaining('before the cell started') } });
  });

  it('kill() interrupts a running cell and is idempotent', async () => {
    const k = await kernel();
    const running = cell(k, 'import time\ntime.sleep(1000)');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await Promise.all([k.kill('the session kernel was disposed'), k.kill()]);
    expect((await running).outcome).toEqual({ kind: 'interrupted', reason: 'the session kernel was disposed' });
    expect(processAlive(k.pid)).toBe(false);
    await k.kill();
  });

  it('answers busy to a second cell while one is running, and the first goes on', async () => {
    const k = await kernel();
    const first = cell(k, 'import time\ntime.sleep(0.2)');
    expect(await cell(k, 'print(1)')).toEqual({ outcome: { kind: 'busy' }, stdout: '', stderr: '' });
    expect((await first).outcome).toEqual({ kind: 'ok' });
  });

  it('fails to start with a clear error for a missing interpreter, an early exit, or no ready report', async () => {
    await expect(KernelProcess.start({ ...kernelCommand(), file: '/nonexistent/python3' })).rejects.toMatchObject({
      code: 'KERNEL_START_FAILED',
      message: expect.stringContaining('ENOENT'),
    });
    const exits = { ...kernelCommand(), args: ['-c', 'import sys; sys.stderr.write("no luck\\n"); sys.exit(4)'] };
    await expect(KernelProcess.start(exits)).rejects.toMatchObject({ message: expect.stringMatching(/exited with code 4.*no luck/) });
    const silent = { ...kernelCommand(), args: ['-c', 'import time; time.sleep(30)'] };
    const error = await KernelProcess.start(silent, { startTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KernelStartError);
    expect((error as Error).message).toContain('did not report ready within 300 ms');
  });

  it('caps a huge traceback and refuses a cell larger than the control channel carries', async () => {
    const k = await kernel();
    const run = await cell(k, 'raise ValueError("x" * 1_000_000)');
    const traceback = run.outcome.kind === 'exception' ? run.outcome.traceback : '';
    expect(traceback).toContain('[traceback truncated]');
    expect(traceback.length).toBeLessThanOrEqual(256 * 1024 + 100);
    await expect(k.runCell('#' + 'x'.repeat(16 * 1024 * 1024), { timeoutMs: 0, onStdout() {}, onStderr() {} })).rejects.toMatchObject({
      code: 'KERNEL_CELL_TOO_LARGE',
    });
    expect(await cell(k, 'print("fine")')).toMatchObject({ outcome: { kind: 'ok' }, stdout: 'fine\n' });
  });

  it('passes UTF-8 source and output through unchanged', async () => {
    const k = await kernel();
    expect(await cell(k, 'word = "héllo ✓ 日本"\nprint(word, len(word))')).toMatchObject({ outcome: { kind: 'ok' }, stdout: 'héllo ✓ 日本 10\n' });
  });

  it('ends a process the cell forked when it falls out of the cell, leaving the kernel intact', async () => {
    const k = await kernel();
    const run = await cell(k, 'import os\nchild = os.fork()\nif child == 0:\n    print("in child", flush=True)\nelse:\n    os.waitpid(child, 0)\n    print("in parent")');
    expect(run.outcome).toEqual({ kind: 'ok' });
    expect(run.stdout).toBe('in child\nin parent\n');
    expect(await cell(k, 'print("next")')).toMatchObject({ outcome: { kind: 'ok' }, stdout: 'next\n' });
  });

  it('settles exited once the process is gone, however it ended', async () => {
    const k = await kernel();
    await cell(k, 'import sys; sys.exit(5)');
    expect(await k.exited).toEqual({ code: 5, signal: null });
    const killed = await kernel();
    await killed.kill();
    expect(await killed.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('fixes the environment at start', async () => {
    const k = await kernel();
    const run = await cell(k, 'import os\nprint(os.environ.get("HERMES_KERNEL_PROBE"))');
    expect(run.stdout).toBe('None\n');
    const withVar = await startKernel({}, { HERMES_KERNEL_PROBE: 'set' });
    kernels.push(withVar);
    expect((await cell(withVar, 'import os\nprint(os.environ["HERMES_KERNEL_PROBE"])')).stdout).toBe('set\n');
  });
});
