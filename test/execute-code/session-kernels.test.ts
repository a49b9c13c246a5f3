import { afterAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createCodeExecutor } from '../../src/execute-code/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import { alive, tempDirs } from './helpers.js';
import { makeToolContext } from '../helpers/tool-context.js';
import type { LocalEnvironment } from '../../src/environments/index.js';
import { readPid, waitForPid } from '../helpers/processes.js';

const executors: { close(): Promise<void> }[] = [];
afterAll(() => Promise.all(executors.map((e) => e.close())));

function kernelExecutor(config: ConfigOverrides = {}) {
  const dirs = tempDirs();
  const executor = createCodeExecutor({ home: dirs.home, cwd: dirs.cwd, config });
  executors.push(executor);
  return { executor, ...dirs };
}

describe('execute_code with session kernels', () => {
  it('keeps variables between calls of one session', async () => {
    const { executor } = kernelExecutor();
    const first = await executor.execute({ sessionId: 'a', code: 'import json\ndata = [1, 2, 3]\nprint(len(data))' });
    expect(first).toMatchObject({ status: 'success', output: '3\n', kernel: { mode: 'session', reused: false, execution_count: 1, state_reset: false } });
    const second = await executor.execute({ sessionId: 'a', code: 'data.append(4); print(json.dumps(data), __name__)' });
    expect(second).toMatchObject({ status: 'success', output: '[1, 2, 3, 4] __main__\n', kernel: { mode: 'session', reused: true, execution_count: 2 } });
  });

  it('isolates sessions and a subagent from its parent', async () => {
    const { executor } = kernelExecutor();
    await executor.execute({ sessionId: 'parent', code: 'secret = 42' });
    const unpin = executor.pin('parent::child::1');
    const child = await executor.execute({ sessionId: 'parent::child::1', code: 'print(secret)' });
    const other = await executor.execute({ sessionId: 'other', code: 'print(secret)' });
    expect(child.status).toBe('error');
    expect(child.output).toContain("NameError: name 'secret' is not defined");
    expect(other.error).toBe("NameError: name 'secret' is not defined");
    await unpin();
    expect(executor.kernelState('parent::child::1')).toBe('none');
    expect((await executor.execute({ sessionId: 'parent', code: 'print(secret)' })).output).toBe('42\n');
  });

  it('reset: true discards the state first', async () => {
    const { executor } = kernelExecutor();
    await executor.execute({ sessionId: 'a', code: 'x = 1' });
    const result = await executor.execute({ sessionId: 'a', code: 'print(x)', reset: true });
    expect(result.error).toBe("NameError: name 'x' is not defined");
    expect(result.kernel).toMatchObject({ mode: 'session', reused: false, execution_count: 1, state_reset: true });
  });

  it('keeps the kernel and its state after an exception', async () => {
    const { executor } = kernelExecutor();
    await executor.execute({ sessionId: 'a', code: 'kept = "yes"' });
    const failed = await executor.execute({ sessionId: 'a', code: 'print("before")\n1 / 0' });
    expect(failed.status).toBe('error');
    expect(failed.output).toMatch(/^before\nTraceback/);
    expect(failed.output).toContain('ZeroDivisionError: division by zero');
    const after = await executor.execute({ sessionId: 'a', code: 'print(kept)' });
    expect(after).toMatchObject({ output: 'yes\n', kernel: { reused: true, execution_count: 3 } });
  });

  it('kills the kernel group on timeout, says the state was lost, and starts fresh', async () => {
    const { executor, cwd } = kernelExecutor({ code_execution: { timeout: 3, kill_grace: 1 } });
    await executor.execute({ sessionId: 'a', code: 'state = 1' });
    const result = await executor.execute({
      sessionId: 'a',
      code: 'import subprocess, time\np = subprocess.Popen(["sleep", "1000"])\nopen("sleep.pid", "w").write(str(p.pid))\nprint("waiting", flush=True)\ntime.sleep(1000)',
    });
    expect(result.status).toBe('timeout');
    expect(result.error).toBe(
      'Cell timed out after 3s; the session kernel was killed and its state was lost. The next execute_code call starts a fresh kernel.',
    );
    expect(result.output.startsWith('waiting\n')).toBe(true);
    expect(alive(readPid(`${cwd}/sleep.pid`))).toBe(false);
    const next = await executor.execute({ sessionId: 'a', code: 'print("state" in globals())' });
    expect(next).toMatchObject({ output: 'False\n', kernel: { reused: false, state_reset: true, execution_count: 1 } });
  });

  it('interrupts a cell with the reason and kills its process group', async () => {
    const { executor, cwd } = kernelExecutor();
    const controller = new AbortController();
    const pending = executor.execute({
      sessionId: 'a',
      signal: controller.signal,
      code: 'import subprocess, time\np = subprocess.Popen(["sleep", "1000"])\nprint("napping", flush=True)\nopen("sleep.pid", "w").write(str(p.pid))\ntime.sleep(1000)',
    });
    const sleeper = await waitForPid(`${cwd}/sleep.pid`);
    controller.abort('user sent a new message');
    const result = await pending;
    expect(result.status).toBe('interrupted');
    expect(result.output).toBe('napping\n[execution interrupted — user sent a new message]');
    expect(result.error).toContain('state was lost');
    expect(alive(sleeper)).toBe(false);
    expect((await executor.execute({ sessionId: 'a', code: 'print(1)' })).kernel).toMatchObject({ reused: false, state_reset: true });
  });

  it('reports sys.exit() and starts fresh next time', async () => {
    const { executor } = kernelExecutor();
    await executor.execute({ sessionId: 'a', code: 'v = 1' });
    const result = await executor.execute({ sessionId: 'a', code: 'import sys\nprint("bye")\nsys.exit(3)' });
    expect(result.status).toBe('error');
    expect(result.exit_code).toBe(3);
    expect(result.output).toContain('bye\n[sys.exit(3) ended the session kernel');
    expect((await executor.execute({ sessionId: 'a', code: 'print("v" in globals())' })).output).toBe('False\n');
  });

  it('reports a kernel killed from outside as died, then starts fresh', async () => {
    const { executor } = kernelExecutor();
    const result = await executor.execute({ sessionId: 'a', code: 'import os, signal\nprint("dying", flush=True)\nos.kill(os.getpid(), signal.SIGKILL)' });
    expect(result.status).toBe('error');
    expect(result.error).toContain('The session kernel died while running the cell');
    expect((await executor.execute({ sessionId: 'a', code: 'print(2)' })).status).toBe('success');
  });

  it('resets the tool budget every cell and refuses calls that arrive after their cell', async () => {
    const { executor } = kernelExecutor({ code_execution: { max_tool_calls: 2 } });
    const run = (code: string) => executor.execute({ sessionId: 'a', code });
    const first = await run(`
from hermes_tools import write_file
import threading, time
print([write_file("f.txt", "x").get("error", "ok") for _ in range(3)])
def late():
    time.sleep(1.5)
    global late_result
    late_result = write_file("late.txt", "x")
threading.Thread(target=late, daemon=True).start()
`);
    expect(first.output).toBe("['ok', 'ok', 'Tool call limit reached (2). No more tool calls allowed in this execution.']\n");
    expect(first.tool_calls_made).toBe(2);
    await new Promise((r) => setTimeout(r, 2500));
    const second = await run('print(late_result)\nprint(write_file("g.txt", "y").get("bytes_written"))');
    expect(second.output).toBe("{'error': 'No active execute_code cell'}\n1\n");
    expect(second.tool_calls_made).toBe(1);
  });

  it('fixes the environment at kernel start; a passthrough added later shows after reset', async () => {
    const { executor } = kernelExecutor();
    process.env.LATE_API_KEY = 'late-value';
    try {
      const code = 'import os; print(os.environ.get("LATE_API_KEY"))';
      expect((await executor.execute({ sessionId: 'a', code })).output).toBe('None\n');
      expect((await executor.execute({ sessionId: 'a', code, passthrough: ['LATE_API_KEY'] })).output).toBe('None\n');
      expect((await executor.execute({ sessionId: 'a', code, passthrough: ['LATE_API_KEY'], reset: true })).output).toBe('late-value\n');
    } finally {
      delete process.env.LATE_API_KEY;
    }
  });

  it('falls back to a one-shot script when the kernel cannot start, and says so', async () => {
    const { executor } = kernelExecutor();
    // An environment that cannot start the kernel runner (its interpreter dies at once) but runs scripts.
    const context = makeToolContext({
      wrapEnvironment: (local) =>
        Object.assign(Object.create(local) as LocalEnvironment, {
          hostCommand: (argv: string[], options: { cwd?: string; env: Record<string, string> }) =>
            argv[1]?.endsWith('kernel_runner.py')
              ? local.hostCommand(['python3', '-c', 'raise SystemExit("no kernels here")'], options)
              : local.hostCommand(argv, options),
        }),
    });
    const result = await executor.execute({ sessionId: 'a', code: 'from hermes_tools import write_file\nx = write_file("f.txt", "1")\nprint(x["bytes_written"])', context });
    expect(result).toMatchObject({ status: 'success', output: '1\n', tool_calls_made: 1, kernel: { mode: 'per-call' } });
    expect((result.kernel as { note: string }).note).toMatch(
      /^session kernel unavailable: .+; this call ran as a one-shot script and keeps no state$/,
    );
    const again = await executor.execute({ sessionId: 'a', code: 'print("x" in globals())', context });
    expect(again.output).toBe('False\n');
  });

  it('runs queued cells of one session one at a time, starting a new kernel when the first ended it', async () => {
    const { executor } = kernelExecutor();
    const [first, second] = await Promise.all([
      executor.execute({ sessionId: 'a', code: 'import sys, time\ntime.sleep(0.3)\nsys.exit(0)' }),
      executor.execute({ sessionId: 'a', code: 'print("second")' }),
    ]);
    expect(first.output).toContain('ended the session kernel');
    expect(first.kernel).toMatchObject({ ended: true });
    // The first cell's sys.exit() reported the end (as in hermes-agent); the second is a fresh kernel, not a reset.
    expect(second).toMatchObject({ status: 'success', output: 'second\n', kernel: { mode: 'session', reused: false, state_reset: false } });
  });

  it('runs cells of 20 sessions at once, each in its own kernel', async () => {
    const { executor } = kernelExecutor({ code_execution: { max_session_kernels: 20 } });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        executor.execute({ sessionId: `s${i}`, code: `import os, time\nme = ${i}\ntime.sleep(0.2)\nprint(me, os.getpid())` }),
      ),
    );
    const pids = new Set(results.map((r) => r.output.trim().split(' ')[1]));
    results.forEach((r, i) => expect(r.output.split(' ')[0]).toBe(String(i)));
    expect(pids.size).toBe(20);
  }, 60_000);

  it('removes each kernel\'s staging folder when the kernel goes', async () => {
    const { executor } = kernelExecutor();
    const dir = (await executor.execute({ sessionId: 'a', code: 'import os; print(os.path.dirname(os.environ["HERMES_RPC_SOCKET"]))' })).output.trim();
    expect(existsSync(dir)).toBe(true);
    await executor.resetSession('a');
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(dir)).toBe(false);
  });
});
