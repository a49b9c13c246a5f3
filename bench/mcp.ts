/*
 * An MCP tool call's round trip from an execute_code script (hermes_tools.mcp → the RPC →
 * the gateway's connection → server-everything over stdio) next to a direct SDK call
 * (Client.callTool over its own stdio transport) and to the gateway's connection alone,
 * all measured in one run against the same server program.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { validateConfig } from '../src/config/index.js';
import { createCodeExecutor } from '../src/execute-code/index.js';
import { McpServers } from '../src/mcp/index.js';
import { silentLogger } from '../src/shared/logger.js';
import { packageRoot } from '../src/shared/package-root.js';
import { ToolRegistry, scriptTools } from '../src/tools/index.js';
import { fmt, median, percentile, timeRuns } from './stats.js';

const CALLS = 300;
const WARMUP = 20;
const EVERYTHING = join(packageRoot(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const line = (label: string, values: number[]) =>
  `${label.padEnd(44)} median ${fmt(median(values), 3)} ms   p95 ${fmt(percentile(values, 95), 3)} ms`;

async function directSdk(): Promise<number[]> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  try {
    const call = () => client.callTool({ name: 'echo', arguments: { message: 'ping' } });
    await timeRuns(WARMUP, call);
    return await timeRuns(CALLS, call);
  } finally {
    await client.close();
  }
}

const SCRIPT = `
import json, time
from hermes_tools import mcp
for _ in range(${WARMUP}):
    mcp.call("everything", "echo", message="ping")
times = []
for _ in range(${CALLS}):
    t0 = time.perf_counter()
    r = mcp.call("everything", "echo", message="ping")
    times.append((time.perf_counter() - t0) * 1000)
    assert r["content"][0]["text"] == "Echo: ping", r
print(json.dumps(times))
`;

export async function run(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-mcp-'));
  const config = validateConfig(
    {
      terminal: { cwd: home },
      code_execution: { max_tool_calls: CALLS + WARMUP + 10 },
      mcp_servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], scripts: true, script_approval: 'off' } },
    },
    'bench',
  ).config;
  const servers = new McpServers({ logger: silentLogger() });
  const registry = new ToolRegistry(scriptTools(), [servers]);
  const executor = createCodeExecutor({ home, cwd: home, config, registry });
  try {
    const direct = await directSdk();
    await servers.load(config.mcp_servers);
    const connection = servers.get('everything')!;
    const signal = new AbortController().signal;
    const gatewayCall = () => connection.call('echo', { message: 'ping' }, signal);
    await timeRuns(WARMUP, gatewayCall);
    const gateway = await timeRuns(CALLS, gatewayCall);
    const result = await executor.execute({ code: SCRIPT, sessionId: 'bench-mcp' });
    if (result.status !== 'success') throw new Error(`bench script failed: ${result.error ?? result.output}`);
    const script = JSON.parse(result.output.trim().split('\n').at(-1)!) as number[];

    console.log(`MCP echo round trip, ${CALLS} calls each (after ${WARMUP} warm-up), server-everything over stdio:`);
    console.log(line('direct SDK call (Client.callTool)', direct));
    console.log(line("the gateway's connection (McpConnection.call)", gateway));
    console.log(line('from a script (hermes_tools.mcp.call)', script));
    console.log(`script / direct SDK: ${fmt(median(script) / median(direct))}× (the RPC and the stub add ${fmt(median(script) - median(direct), 3)} ms a call)`);
  } finally {
    await executor.close();
    await servers.close();
    rmSync(home, { recursive: true, force: true });
  }
}
