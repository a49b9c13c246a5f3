import { afterEach, describe, expect, it } from 'vitest';
import { KernelPool, KernelStartError, type KernelPoolOptions, type KernelProcess } from '../../../src/execute-code/kernel/index.js';
import { cell, eventually, processAlive, runKernelTests, startKernel, waitGone } from './helpers.js';

const pools: KernelPool[] = [];
function pool(options: Partial<KernelPoolOptions> = {}) {
  const created = new KernelPool({ maxKernels: 4, idleTimeoutMs: 60_000, start: () => startKernel(), ...options });
  pools.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.closeAll()));
});

/** Runs one cell for `owner` and returns its stdout, the kernel's pid and the use info. */
async function run(p: KernelPool, owner: string, code: string, options: { reset?: boolean } = {}) {
  return p.withKernel(owner, options, async (kernel, info) => {
    const result = await cell(kernel, code);
    return { ...result, pid: kernel.pid, info, count: kernel.executionCount };
  });
}

describe.runIf(runKernelTests)('KernelPool', () => {
  it('reuses the owner kernel so state persists, and isolates owners', async () => {
    const p = pool();
    const first = await run(p, 's1', 'x = 1');
    expect(first.info).toEqual({ reused: false, stateReset: false });
    const second = await run(p, 's1', 'x += 1; print(x)');
    expect(second).toMatchObject({ stdout: '2\n', pid: first.pid, count: 2, info: { reused: true, stateReset: false } });
    const other = await run(p, 's2', 'print("x" in globals())');
    expect(other.stdout).toBe('False\n');
    const child = await run(p, 's1::child::a', 'print("x" in globals())');
    expect(child.stdout).toBe('False\n');
    expect(new Set([first.pid, other.pid, child.pid]).size).toBe(3);
  });

  it('reset discards the kernel: the old pid is gone and the state with it', async () => {
    const p = pool();
    const first = await run(p, 's', 'x = 1');
    const reset = await run(p, 's', 'print(x)', { reset: true });
    expect(reset.info).toEqual({ reused: false, stateReset: true });
    expect(reset.outcome).toMatchObject({ kind: 'exception', traceback: expect.stringContaining("NameError: name 'x' is not defined") });
    expect(processAlive(first.pid)).toBe(false);
    expect((await run(p, 's', 'print(1)')).info).toEqual({ reused: true, stateReset: false });
  });

  it('keeps the kernel after an exception', async () => {
    const p = pool();
    await run(p, 's', 'x = 5');
    expect((await run(p, 's', '1/0')).outcome.kind).toBe('exception');
    expect(await run(p, 's', 'print(x)')).toMatchObject({ stdout: '5\n', info: { reused: true, stateReset: false } });
  });

  it('drops a kernel after a timeout, interrupt, sys.exit or death, so the next call is fresh (with stateReset but after sys.exit)', async () => {
    const p = pool();
    const endings: [string, (kernel: KernelProcess) => Promise<unknown>][] = [
      ['timeout', (k) => k.runCell('import time; time.sleep(100)', { timeoutMs: 200, onStdout() {}, onStderr() {} })],
      [
        'interrupt',
        (k) => {
          const controller = new AbortController();
          setTimeout(() => controller.abort('user sent a new message'), 200);
          return k.runCell('import time; time.sleep(100)', { timeoutMs: 0, signal: controller.signal, onStdout() {}, onStderr() {} });
        },
      ],
      ['exit', (k) => k.runCell('import sys; sys.exit(0)', { timeoutMs: 0, onStdout() {}, onStderr() {} })],
      ['death', (k) => k.runCell('import os, signal; os.kill(os.getpid(), signal.SIGKILL)', { timeoutMs: 0, onStdout() {}, onStderr() {} })],
    ];
    for (const [name, end] of endings) {
      const owner = `s-${name}`;
      await run(p, owner, 'x = 1');
      const pid = await p.withKernel(owner, {}, async (kernel) => {
        await end(kernel);
        return kernel.pid;
      });
      expect(p.state(owner)).toBe('none');
      expect(processAlive(pid)).toBe(false);
      const next = await run(p, owner, 'print("x" in globals())');
      // sys.exit() reported the end in its own cell, as hermes-agent does: the next cell is just a fresh kernel.
      const stateReset = name !== 'exit';
      expect({ name, stdout: next.stdout, info: next.info }).toEqual({ name, stdout: 'False\n', info: { reused: false, stateReset } });
    }
  });

  it('starts fresh with stateReset when the kernel died while idle', async () => {
    const p = pool();
    const first = await run(p, 's', 'x = 1');
    process.kill(first.pid, 'SIGKILL');
    expect(await waitGone(first.pid)).toBe(true);
    expect(await eventually(() => p.state('s') === 'none')).toBe(true);
    const next = await run(p, 's', 'print("x" in globals())');
    expect(next).toMatchObject({ stdout: 'False\n', info: { reused: false, stateReset: true } });
  });

  it('reaps an idle kernel after the idle timeout', async () => {
    const p = pool({ idleTimeoutMs: 1000 });
    const first = await run(p, 's', 'x = 1');
    expect(p.state('s')).toBe('idle');
    expect(await eventually(() => p.state('s') === 'none', 10_000)).toBe(true);
    expect(await waitGone(first.pid)).toBe(true);
    expect((await run(p, 's', 'print(1)')).info).toEqual({ reused: false, stateReset: true });
  });

  it('with a cap of 2 and 4 owners keeps the two most recent and kills the evicted kernels', async () => {
    const p = pool({ maxKernels: 2 });
    const pids: Record<string, number> = {};
    for (const owner of ['a', 'b', 'c', 'd']) pids[owner] = (await run(p, owner, 'x = 1')).pid;
    expect(['a', 'b', 'c', 'd'].map((owner) => p.state(owner))).toEqual(['none', 'none', 'idle', 'idle']);
    expect(processAlive(pids.a)).toBe(false);
    expect(processAlive(pids.b)).toBe(false);
    expect(processAlive(pids.c)).toBe(true);
    expect((await run(p, 'a', 'print("x" in globals())')).info).toEqual({ reused: false, stateReset: true });
    // a's new kernel made three: c, now the least recently used, was evicted.
    expect(p.state('c')).toBe('none');
    expect(p.state('d')).toBe('idle');
  });

  it('evicts by last use, not by start order', async () => {
    const p = pool({ maxKernels: 2 });
    await run(p, 'a', 'x = 1');
    await run(p, 'b', 'x = 1');
    await run(p, 'a', 'x += 1');
    await run(p, 'c', 'x = 1');
    expect(['a', 'b', 'c'].map((owner) => p.state(owner))).toEqual(['idle', 'none', 'idle']);
  });

  it('never evicts a busy kernel', async () => {
    const p = pool({ maxKernels: 1 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const busy = p.withKernel('busy', {}, async (kernel) => {
      await held;
      return (await cell(kernel, 'print("alive")')).stdout;
    });
    await eventually(() => p.state('busy') === 'busy' && p.state('other') === 'none');
    await run(p, 'other', 'x = 1');
    release();
    expect(await busy).toBe('alive\n');
  });

  it('keeps pinned kernels through eviction, not counting them, and kills them on unpin', async () => {
    const p = pool({ maxKernels: 1 });
    const unpinA = p.pin('parent::child::1');
    const unpinB = p.pin('parent::child::2');
    const a = await run(p, 'parent::child::1', 'x = 1');
    const b = await run(p, 'parent::child::2', 'x = 1');
    await run(p, 's1', 'x = 1');
    await run(p, 's2', 'x = 1');
    expect(p.state('s1')).toBe('none');
    expect(p.state('s2')).toBe('idle');
    expect(await run(p, 'parent::child::1', 'print(x)')).toMatchObject({ stdout: '1\n', pid: a.pid });
    await unpinA();
    await unpinA();
    expect(p.state('parent::child::1')).toBe('none');
    expect(processAlive(a.pid)).toBe(false);
    expect(processAlive(b.pid)).toBe(true);
    await unpinB();
    expect(processAlive(b.pid)).toBe(false);
  });

  it('does not reap a pinned kernel', async () => {
    const p = pool({ idleTimeoutMs: 200 });
    const unpin = p.pin('sub');
    const first = await run(p, 'sub', 'x = 1');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(p.state('sub')).toBe('idle');
    expect(processAlive(first.pid)).toBe(true);
    await unpin();
  });

  it('runs the cells of one owner one at a time, in call order', async () => {
    const p = pool();
    await run(p, 's', 'log = []');
    const calls = [0, 1, 2, 3].map((i) => run(p, 's', `import time\nlog.append(${i})\ntime.sleep(0.05)\nlog.append(${i})`));
    expect(p.state('s')).toBe('busy');
    await Promise.all(calls);
    expect((await run(p, 's', 'print(log)')).stdout).toBe('[0, 0, 1, 1, 2, 2, 3, 3]\n');
  });

  it('runs 20 owners at once, each in its own kernel', async () => {
    const p = pool({ maxKernels: 4 });
    const owners = Array.from({ length: 20 }, (_, i) => `session-${i}`);
    const results = await Promise.all(owners.map((owner, i) => run(p, owner, `import time\nvalue = ${i}\ntime.sleep(0.2)\nprint(value * 2)`)));
    expect(results.map((r) => r.stdout)).toEqual(owners.map((_, i) => `${i * 2}\n`));
    expect(new Set(results.map((r) => r.pid)).size).toBe(20);
    // The next acquire brings the pool back under the cap.
    await run(p, 'session-0', 'print(value)');
    expect(owners.filter((owner) => p.state(owner) === 'idle').length).toBe(4);
    const gone = results.filter((r) => !processAlive(r.pid)).length;
    expect(gone).toBe(16);
  });

  it('dispose kills the kernel, interrupts a running cell, and forgets the owner', async () => {
    const p = pool();
    const first = await run(p, 's', 'x = 1');
    const running = p.withKernel('s', {}, (kernel) => kernel.runCell('import time; time.sleep(100)', { timeoutMs: 0, onStdout() {}, onStderr() {} }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await p.dispose('s');
    expect(await running).toEqual({ kind: 'interrupted', reason: 'the session kernel was disposed' });
    expect(processAlive(first.pid)).toBe(false);
    expect((await run(p, 's', 'print("x" in globals())')).info).toEqual({ reused: false, stateReset: false });
  });

  it('passes a start failure to the caller and tries again on the next call', async () => {
    let attempts = 0;
    const p = pool({
      start: async () => {
        attempts++;
        if (attempts === 1) throw new KernelStartError('no python here');
        return startKernel();
      },
    });
    await expect(run(p, 's', 'print(1)')).rejects.toMatchObject({ code: 'KERNEL_START_FAILED' });
    expect(p.state('s')).toBe('none');
    expect((await run(p, 's', 'print(1)')).stdout).toBe('1\n');
  });

  it('starts a kernel with the call own start function when one is given', async () => {
    const p = pool({ start: () => Promise.reject(new KernelStartError('the pool default must not be used')) });
    const started = await p.withKernel('s', { start: () => startKernel({}, { CALL_ENV: 'from the call' }) }, async (kernel) =>
      cell(kernel, 'import os\nprint(os.environ["CALL_ENV"])'),
    );
    expect(started.stdout).toBe('from the call\n');
    // A live kernel is reused: the second call's start is not called.
    const reused = await p.withKernel('s', { start: () => Promise.reject(new Error('not needed')) }, async (kernel, info) => ({
      info,
      run: await cell(kernel, 'print(1)'),
    }));
    expect(reused.info.reused).toBe(true);
  });

  it('closeAll kills every kernel and refuses later calls', async () => {
    const p = pool();
    const pids = await Promise.all(['a', 'b'].map(async (owner) => (await run(p, owner, 'x = 1')).pid));
    await p.closeAll();
    expect(pids.map(processAlive)).toEqual([false, false]);
    await expect(run(p, 'a', 'print(1)')).rejects.toMatchObject({ code: 'KERNEL_POOL_CLOSED' });
  });
});
