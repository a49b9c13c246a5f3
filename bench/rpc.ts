/*
 * The hermes_tools round trip of a no-op tool, and where its time goes, in one run. Each row
 * is p50/p99 of the stub's own `_call` (hermes_tools_base.py) from one Python process, against:
 *   - the floor: a Python server on a Unix socket that answers each line at once;
 *   - framing: the gateway's RpcServer answering `{}` at once (JSON lines, the token check);
 *   - + the call gate: the same server with CallGate.handle and the registry's dispatch of a no-op tool;
 *   - + the approvals check: a no-op tool that runs terminal's guard on `echo hi` first;
 *   - the whole path: executor.execute of a one-shot script, and of a session-kernel cell.
 * Target: p50 ≤ 50 µs and p99 ≤ 300 µs for the whole path.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { guardCommand } from '../src/approvals/index.js';
import { configSchema, hermesPaths } from '../src/config/index.js';
import { CallGate } from '../src/execute-code/call-gate.js';
import { createCodeExecutor } from '../src/execute-code/index.js';
import { RpcServer, type RpcHandler } from '../src/execute-code/rpc/server.js';
import { packageRoot } from '../src/shared/package-root.js';
import { silentLogger } from '../src/shared/index.js';
import { scriptTools } from '../src/tools/builtin/index.js';
import { ToolRegistry, defineTool } from '../src/tools/index.js';
import { fmt } from './stats.js';

const execFileAsync = promisify(execFile);
const CALLS = 5000;

/** Calls `_call` CALLS times after a warm-up; prints `p50 p99` in µs. */
const TIMING = (call: string) => `
import time
${call}
samples = []
for _ in range(${CALLS}):
    t = time.perf_counter_ns()
    ${call}
    samples.append(time.perf_counter_ns() - t)
samples.sort()
print(samples[len(samples) // 2] / 1000, samples[int(len(samples) * 0.99) - 1] / 1000)
`;

const DRIVER = (pythonDir: string) => `
import sys
sys.path.insert(0, ${JSON.stringify(pythonDir)})
import hermes_tools_base as h
${TIMING('h._call("read_file", {"path": "x"})')}`;

/** A Python server that answers every request line with `{"id": …, "result": {}}`. */
const FLOOR_SERVER = `
import json, os, socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sys.argv[1]); server.listen(1)
print("ready", flush=True)
conn, _ = server.accept()
reader = conn.makefile("rb")
for line in reader:
    conn.sendall((json.dumps({"id": json.loads(line)["id"], "result": {}}) + "\\n").encode())
`;

interface Row {
  p50: number;
  p99: number;
}

const figures = (stdout: string): Row => {
  const [p50, p99] = stdout.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { p50, p99 };
};

async function drive(python: string, socket: string, token: string): Promise<Row> {
  const pythonDir = join(packageRoot(), 'src/execute-code/python');
  const { stdout } = await execFileAsync(python, ['-c', DRIVER(pythonDir)], { env: { ...process.env, HERMES_RPC_SOCKET: socket, HERMES_RPC_TOKEN: token } });
  return figures(stdout);
}

async function floor(python: string, dir: string): Promise<Row> {
  const socket = join(dir, 'floor.sock');
  const server = spawn(python, ['-c', FLOOR_SERVER, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => server.stdout.once('data', () => resolve()));
  try {
    return await drive(python, socket, '');
  } finally {
    server.kill();
  }
}

async function served(python: string, dir: string, name: string, handler: RpcHandler): Promise<Row> {
  const rpc = new RpcServer({ transport: 'unix', socketPath: join(dir, `${name}.sock`), handler });
  await rpc.listen();
  try {
    return await drive(python, rpc.address, rpc.token);
  } finally {
    await rpc.close();
  }
}

function gated(tool: ReturnType<typeof defineTool>): RpcHandler {
  const gate = new CallGate(new ToolRegistry([tool]));
  const environment = { cwd: tmpdir(), execute: async () => ({ output: '', exit_code: 0 }), cleanup: async () => undefined };
  const context = { sessionId: 'bench', signal: new AbortController().signal, logger: silentLogger(), environment, config: configSchema.parse({}), paths: hermesPaths(tmpdir()) };
  gate.open({ allowed: new Set([tool.name]), maxCalls: Number.MAX_SAFE_INTEGER, context });
  return gate.handle;
}

async function wholePath(python: string, sessionKernels: boolean): Promise<Row> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-rpc-'));
  writeFileSync(join(home, 'config.yaml'), `code_execution:\n  python: ${python}\n`);
  const noop = defineTool({ name: 'read_file', description: 'no-op', args: z.object({}).passthrough(), run: async () => ({}) });
  const registry = new ToolRegistry([noop, ...scriptTools().filter((tool) => tool.name !== 'read_file')]);
  const executor = createCodeExecutor({
    home,
    cwd: home,
    registry,
    config: { code_execution: { session_kernels: sessionKernels, max_tool_calls: CALLS + 10, python } },
  });
  try {
    await executor.execute({ code: 'print(1)', sessionId: 'bench' });
    const result = await executor.execute({ sessionId: 'bench', code: `from hermes_tools import read_file\n${TIMING('read_file("x")')}` });
    return figures(result.output);
  } finally {
    await executor.close();
  }
}

export async function run(): Promise<void> {
  // The real interpreter behind `python3` (a pyenv shim would add its own start-up).
  const python = (await execFileAsync('python3', ['-c', 'import sys; print(sys.executable)'])).stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), 'hermes-bench-rpc-'));
  const noop = defineTool({ name: 'read_file', description: 'no-op', args: z.object({}).passthrough(), run: async () => ({}) });
  const approvals = { mode: 'on' as const, skipApproval: false, home: '/nonexistent', hermesHome: '/nonexistent', logger: silentLogger(), signal: new AbortController().signal };
  const checked = defineTool({
    name: 'read_file',
    description: 'no-op after the approvals check',
    args: z.object({}).passthrough(),
    run: async () => {
      const verdict = await guardCommand('echo hi', approvals);
      return verdict.allowed ? {} : { error: verdict.error };
    },
  });
  const rows: Array<[string, Row]> = [
    ['floor: Python ↔ Python on a Unix socket', await floor(python, dir)],
    ['framing: RpcServer answering at once', await served(python, dir, 'framing', async () => ({}))],
    ['+ the call gate and the registry (no-op tool)', await served(python, dir, 'gate', gated(noop))],
    ['+ the approvals check (terminal\'s guard of "echo hi")', await served(python, dir, 'approvals', gated(checked))],
    ['whole path from a one-shot script', await wholePath(python, false)],
    ['whole path from a kernel cell', await wholePath(python, true)],
  ];
  console.log(`hermes_tools round trip of a no-op tool, the stub's _call, ${CALLS} calls each (target whole path p50 ≤ 50 µs, p99 ≤ 300 µs)`);
  const base = rows[0][1].p50;
  for (const [name, row] of rows) {
    console.log(`  ${name.padEnd(56)} p50 ${fmt(row.p50, 1).padStart(7)} µs   p99 ${fmt(row.p99, 1).padStart(7)} µs   (${fmt(row.p50 / base, 2)}x the floor)`);
  }
}
