import { describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { alive, perCallExecutor } from './helpers.js';
import { readPid, waitForPid } from '../helpers/processes.js';

describe('execute_code limits', () => {
  it('kills the script, its child and its grandchild on timeout', async () => {
    // Timeouts leave Python room to start on a loaded machine; the point is what dies.
    const { executor, cwd } = perCallExecutor({ code_execution: { timeout: 4, kill_grace: 1 } });
    const result = await executor.execute({
      sessionId: 's',
      code: `
import subprocess, os, time
child = subprocess.Popen(["bash", "-c", "sleep 1000 & echo $! > grandchild.pid; wait"])
open("child.pid", "w").write(str(child.pid))
open("script.pid", "w").write(str(os.getpid()))
print("started", flush=True)
time.sleep(1000)
`,
    });
    expect(result.status).toBe('timeout');
    expect(result.error).toBe('Script timed out after 4s and was killed.');
    expect(result.output).toBe('started\nScript timed out after 4s and was killed.');
    for (const name of ['script.pid', 'child.pid', 'grandchild.pid']) {
      const pid = readPid(`${cwd}/${name}`);
      expect(alive(pid), name).toBe(false);
    }
  });

  it('kills a script that traps SIGTERM after the grace period', async () => {
    const { executor } = perCallExecutor({ code_execution: { timeout: 3, kill_grace: 1.5 } });
    const started = Date.now();
    const result = await executor.execute({
      sessionId: 's',
      code: `
import signal, time
signal.signal(signal.SIGTERM, lambda *a: print("ignoring SIGTERM", flush=True))
print("ready", flush=True)
while True:
    time.sleep(0.05)
`,
    });
    expect(result.status).toBe('timeout');
    expect(result.output).toContain('ignoring SIGTERM');
    expect(result.exit_code).toBeNull();
    // SIGTERM was ignored, so the group only died at the SIGKILL after the grace.
    expect(result.output).toMatch(/ready\n(ignoring SIGTERM\n)+Script timed out after 3s and was killed\.$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4400);
  });

  it('interrupts with the reason and kills the process group', async () => {
    const { executor, cwd } = perCallExecutor();
    const controller = new AbortController();
    const pending = executor.execute({
      sessionId: 's',
      signal: controller.signal,
      code: `
import subprocess, os, time
p = subprocess.Popen(["sleep", "1000"])
open("sleep.pid", "w").write(str(p.pid))
print("working", flush=True)
time.sleep(1000)
`,
    });
    const sleeper = await waitForPid(`${cwd}/sleep.pid`);
    controller.abort('user sent a new message');
    const result = await pending;
    expect(result.status).toBe('interrupted');
    expect(result.output).toBe('working\n[execution interrupted — user sent a new message]');
    expect(alive(sleeper)).toBe(false);
  });

  it('says [execution interrupted] when the abort has no reason', async () => {
    const { executor } = perCallExecutor();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await executor.execute({ sessionId: 's', signal: controller.signal, code: 'import time; time.sleep(100)' });
    expect(result.output).toBe('[execution interrupted]');
  });

  it('keeps 40 % head and 60 % tail of a large stdout and spills the full text', async () => {
    const { executor, home } = perCallExecutor();
    const result = await executor.execute({
      sessionId: 's',
      code: `
for i in range(20000):
    print(f"line {i:05d}")
`,
    });
    const total = 20000 * 11;
    expect(result.status).toBe('success');
    expect(result.stdout_truncated).toBe(true);
    expect(result.stdout_bytes_total).toBe(total);
    expect(result.output.startsWith('line 00000\n')).toBe(true);
    expect(result.output.endsWith('line 19999\n')).toBe(true);
    expect(result.output).toContain(`... [OUTPUT TRUNCATED - ${total - 50000} bytes omitted out of ${total} total] ...`);
    const marker = result.output.indexOf('... [OUTPUT');
    expect(Buffer.byteLength(result.output.slice(0, marker - 1))).toBe(20000);
    expect(result.stdout_spill_path!.startsWith(`${home}/cache/exec/`)).toBe(true);
    expect(readFileSync(result.stdout_spill_path!, 'utf8').length).toBe(total);
    expect(result.warning).toContain('read_file');
  });

  it('caps the spill file and stderr, and shows stderr when the script fails', async () => {
    const { executor } = perCallExecutor({ code_execution: { max_spill_bytes: 100_000, max_stderr_bytes: 1000 } });
    const result = await executor.execute({
      sessionId: 's',
      code: `
import sys
sys.stdout.write("o" * 300000)
sys.stderr.write("E" * 5000 + "\\n")
raise ValueError("boom")
`,
    });
    expect(result.status).toBe('error');
    expect(statSync(result.stdout_spill_path!).size).toBe(100_000);
    expect(result.output).toContain('ValueError: boom');
    expect(result.error).toBe('Script exited with code 1: ValueError: boom');
    expect(result.exit_code).toBe(1);
    const stderrPart = result.output.slice(result.output.lastIndexOf('o') + 1);
    expect(Buffer.byteLength(stderrPart)).toBeLessThan(1200);
  });

  it('keeps the gateway memory bounded while a script prints a gigabyte', async () => {
    const { executor } = perCallExecutor({ code_execution: { timeout: 120 } });
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const result = await executor.execute({
      sessionId: 's',
      code: `
import sys
chunk = "x" * 1048575 + "\\n"
for _ in range(1024):
    sys.stdout.write(chunk)
`,
    });
    clearInterval(timer);
    expect(result.status).toBe('success');
    expect(result.stdout_bytes_total).toBe(1024 * 1024 * 1024);
    expect(result.output.length).toBeLessThan(51_000);
    // Fixed caps: 50 KB inline, 5 MB spill, pipe buffers. Far below the gigabyte printed.
    expect(peak - before).toBeLessThan(150 * 1024 * 1024);
  }, 120_000);
});
