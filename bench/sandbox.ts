/*
 * The sandbox's cost against local, in one run: a warm session-kernel cell through the whole
 * execute_code path, a hermes_tools round trip of a no-op tool from a cell, and a read_file
 * (which on the sandbox runs inside bubblewrap). Target: warm cell and RPC within 1.5x local.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { configSchema, hermesPaths } from '../src/config/index.js';
import { EnvironmentManager, findExecutable, loadProviderRegistry, type Environment } from '../src/environments/index.js';
import { createCodeExecutor } from '../src/execute-code/index.js';
import { silentLogger } from '../src/shared/index.js';
import { scriptTools } from '../src/tools/builtin/index.js';
import { ToolRegistry, defineTool } from '../src/tools/index.js';
import { fmt, median, timeRuns } from './stats.js';

const execFileAsync = promisify(execFile);
const CELLS = 300;
const CALLS = 3000;

interface Figures {
  cellP50: number;
  rpcP50: number;
  rpcP99: number;
  readP50: number;
}

async function measure(backend: 'local' | 'sandbox', python: string): Promise<Figures> {
  const home = mkdtempSync(join(tmpdir(), `hermes-bench-${backend}-`));
  const cwd = mkdtempSync(join(tmpdir(), `hermes-bench-${backend}-cwd-`));
  writeFileSync(join(cwd, 'data.txt'), 'hello\n'.repeat(100));
  const config = configSchema.parse({ terminal: { backend, cwd }, code_execution: { python, max_tool_calls: CALLS + 10 } });
  // As root the sandbox works as an unprivileged user, and refuses a project folder of root's that is not empty: give it one.
  if (backend === 'sandbox' && process.getuid?.() === 0) for (const path of [cwd, join(cwd, 'data.txt')]) chownSync(path, config.terminal.sandbox.uid, config.terminal.sandbox.uid);
  const paths = hermesPaths(home);
  const { registry: providers } = await loadProviderRegistry({ config, paths });
  const manager = new EnvironmentManager({ config, paths, registry: providers });
  const noop = defineTool({ name: 'web_search', description: 'no-op', args: z.object({}).passthrough(), run: async () => ({}) });
  const registry = new ToolRegistry([noop, ...scriptTools().filter((tool) => tool.name !== 'web_search')]);
  const executor = createCodeExecutor({ loaded: { config, paths, warnings: [] }, registry });
  const environment: Environment = await manager.environmentFor('bench');
  const signal = new AbortController().signal;
  const context = { sessionId: 'bench', signal, environment, logger: silentLogger(), config, paths };
  const cell = (code: string) => executor.execute({ code, sessionId: 'bench', context });
  try {
    await cell('x = 0');
    for (let i = 0; i < 20; i++) await cell('x += 1');
    const cells = await timeRuns(CELLS, () => cell('x += 1; print(x)'));
    const rpc = await cell(`
import time
from hermes_tools import web_search
web_search("warm")
samples = []
for _ in range(${CALLS}):
    t = time.perf_counter_ns()
    web_search("x")
    samples.append(time.perf_counter_ns() - t)
samples.sort()
print(samples[len(samples) // 2] / 1e6, samples[int(len(samples) * 0.99) - 1] / 1e6)
`);
    const [rpcP50, rpcP99] = rpc.output.trim().split(' ').map(Number);
    const read = registry.get('read_file')!;
    const reads = await timeRuns(50, () => read.handler({ path: 'data.txt' }, context));
    return { cellP50: median(cells), rpcP50, rpcP99, readP50: median(reads) };
  } finally {
    await executor.close();
    await manager.closeAll();
  }
}

export async function run(): Promise<void> {
  if (!findExecutable('bwrap')) {
    console.log('sandbox: bubblewrap is not installed (apt-get install bubblewrap); nothing measured');
    return;
  }
  const python = (await execFileAsync('python3', ['-c', 'import sys; print(sys.executable)'])).stdout.trim();
  const local = await measure('local', python);
  const sandbox = await measure('sandbox', python);
  const ratio = (a: number, b: number) => `${fmt(a / b)}x`;
  console.log(
    `execute_code warm kernel cell (whole path) p50: sandbox ${fmt(sandbox.cellP50)} ms, local ${fmt(local.cellP50)} ms ` +
      `(ratio ${ratio(sandbox.cellP50, local.cellP50)}; target ≤ 1.5x) over ${CELLS} cells`,
  );
  console.log(
    `hermes_tools round trip of a no-op tool from a kernel cell p50: sandbox ${fmt(sandbox.rpcP50, 3)} ms, local ${fmt(local.rpcP50, 3)} ms ` +
      `(ratio ${ratio(sandbox.rpcP50, local.rpcP50)}; target ≤ 1.5x); p99 ${fmt(sandbox.rpcP99, 3)} vs ${fmt(local.rpcP99, 3)} ms over ${CALLS} calls`,
  );
  console.log(
    `read_file of a 600-byte file p50: sandbox ${fmt(sandbox.readP50)} ms (inside bubblewrap), local ${fmt(local.readP50)} ms ` +
      `(ratio ${ratio(sandbox.readP50, local.readP50)})`,
  );
}
