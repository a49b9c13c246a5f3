import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createCodeExecutor } from '../src/execute-code/index.js';
import { ToolRegistry, defineTool } from '../src/tools/index.js';
import { scriptTools } from '../src/tools/builtin/index.js';
import { packageRoot } from '../src/shared/package-root.js';
import { z } from 'zod';
import { fmt, median, timeRuns } from './stats.js';

const execFileAsync = promisify(execFile);

/** hermes exec of a script read from stdin. */
function hermesExec(cli: string, home: string, code: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, '--home', home, 'exec', '-'], { stdio: ['pipe', 'ignore', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`hermes exec exited ${code}`))));
    child.stdin.end(code);
  });
}

export async function run(): Promise<void> {
  // The real interpreter behind `python3` (a pyenv shim would add its own start-up to both sides).
  const python = (await execFileAsync('python3', ['-c', 'import sys; print(sys.executable)'])).stdout.trim();
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-'));
  writeFileSync(join(home, 'config.yaml'), `code_execution:\n  python: ${python}\n`);
  const cwd = mkdtempSync(join(tmpdir(), 'hermes-bench-cwd-'));
  const noop = defineTool({ name: 'read_file', description: 'no-op', args: z.object({}).passthrough(), run: async () => ({}) });
  const registry = new ToolRegistry([noop, ...scriptTools().filter((tool) => tool.name !== 'read_file')]);
  const executor = createCodeExecutor({
    home,
    cwd,
    registry,
    config: { code_execution: { session_kernels: false, max_tool_calls: 100_000, python } },
  });

  // Warm both paths once so neither pays first-use costs in the figures.
  await execFileAsync(python, ['-c', 'print(1)']);
  await executor.execute({ code: 'print(1)', sessionId: 'bench' });

  const times = 40;
  const bare = median(await timeRuns(times, () => execFileAsync(python, ['-c', 'print(1)'])));
  const lib = median(await timeRuns(times, () => executor.execute({ code: 'print(1)', sessionId: 'bench' })));
  console.log(
    `execute_code print(1) via library: median ${fmt(lib)} ms vs ${python} -c ${fmt(bare)} ms ` +
      `(ratio ${fmt(lib / bare)}x, overhead ${fmt(lib - bare)} ms; target ≤ 40 ms)`,
  );

  const cli = join(packageRoot(), 'dist/src/cli/main.js');
  const viaCli = median(await timeRuns(15, () => hermesExec(cli, home, 'print(1)')));
  const nodeStart = median(await timeRuns(15, () => execFileAsync(process.execPath, ['-e', '0'])));
  console.log(
    `hermes exec print(1): median ${fmt(viaCli)} ms vs ${python} -c ${fmt(bare)} ms ` +
      `(ratio ${fmt(viaCli / bare)}x, overhead ${fmt(viaCli - bare)} ms, of which a bare node start is ${fmt(nodeStart)} ms)`,
  );

  const calls = 5000;
  const rpc = await executor.execute({
    sessionId: 'bench',
    code: `
import time
from hermes_tools import read_file
read_file("warm")
samples = []
for _ in range(${calls}):
    t = time.perf_counter_ns()
    read_file("x")
    samples.append(time.perf_counter_ns() - t)
samples.sort()
print(samples[len(samples) // 2] / 1000, samples[int(len(samples) * 0.99) - 1] / 1000)
`,
  });
  const [p50, p99] = rpc.output.trim().split(' ').map(Number);
  console.log(`RPC round trip of a no-op tool over ${calls} calls: p50 ${fmt(p50, 1)} µs p99 ${fmt(p99, 1)} µs (target p50 ≤ 150 µs)`);

  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const big = await executor.execute({
    sessionId: 'bench',
    code: 'import sys\nchunk = "x" * 1048575 + "\\n"\nfor _ in range(200):\n    sys.stdout.write(chunk)\n',
  });
  clearInterval(timer);
  console.log(
    `gateway RSS while a script prints 200 MB: before ${fmt(before / 2 ** 20, 1)} MB, peak ${fmt(peak / 2 ** 20, 1)} MB ` +
      `(+${fmt((peak - before) / 2 ** 20, 1)} MB; ${big.stdout_bytes_total} bytes printed, ${big.output.length} kept inline)`,
  );
  await executor.close();
}
