import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LocalEnvironment, type Environment, type EnvironmentStream, type StreamOptions } from '../../../src/environments/index.js';
import { createCodeExecutor, type DefaultCodeExecutor } from '../../../src/execute-code/index.js';
import { ToolRegistry, defineTool } from '../../../src/tools/index.js';
import { scriptTools } from '../../../src/tools/builtin/index.js';
import { makeToolContext, tempDir } from '../../helpers/tool-context.js';

/**
 * A plugin's environment as the README describes it: `execute` and, optionally, `openStream`,
 * here both on this host with bash in a folder of its own. It counts what execute_code asks of it.
 */
function pluginEnvironment(options: { stream?: 'works' | 'throws' | 'exits' } = {}) {
  const cwd = tempDir('hermes-plugin-box-');
  const local = new LocalEnvironment({ cwd, timeout: 60, childEnv: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' }) });
  const counts = { execute: 0, streams: 0 };
  const env: Environment = {
    cwd,
    execute: (command, opts) => {
      counts.execute++;
      return local.execute(command, opts);
    },
    cleanup: async () => undefined,
  };
  if (options.stream) {
    env.openStream = (command: string, opts: StreamOptions = {}): EnvironmentStream => {
      counts.streams++;
      if (options.stream === 'throws') throw new Error('this box has no streams today');
      const child = spawn('bash', ['--noprofile', '--norc', '-c', options.stream === 'exits' ? 'exit 3' : command], {
        cwd: opts.cwd ?? cwd,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...opts.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
      return {
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: child.stderr,
        exited,
        kill: async () => {
          if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
          await exited;
        },
      };
    };
  }
  return { env, counts };
}

describe('execute_code on a plugin environment that offers openStream', () => {
  const executors: DefaultCodeExecutor[] = [];
  const echo = defineTool({
    name: 'web_search',
    description: 'echoes its query',
    args: z.object({ query: z.string() }).passthrough(),
    run: async (args) => ({ echoed: args.query }),
  });
  const registry = new ToolRegistry([echo, ...scriptTools().filter((tool) => tool.name !== 'web_search')]);
  const executor = (kernels: boolean) => {
    const made = createCodeExecutor({ home: tempDir('hermes-plugin-home-'), registry, config: { code_execution: { session_kernels: kernels } } });
    executors.push(made);
    return made;
  };
  const code = 'from hermes_tools import web_search\nprint([web_search(query=str(i))["echoed"] for i in range(3)])';

  afterAll(async () => {
    await Promise.all(executors.map((made) => made.close()));
  });

  it('runs a one-shot script and its tool calls over the stream without one execute call', async () => {
    const { env, counts } = pluginEnvironment({ stream: 'works' });
    const result = await executor(false).execute({ sessionId: 'p1', context: makeToolContext({ environment: env }), code });
    expect(result, JSON.stringify(result)).toMatchObject({ status: 'success', tool_calls_made: 3, output: "['0', '1', '2']\n" });
    expect(counts).toEqual({ execute: 0, streams: 1 });
  });

  it('keeps a session kernel on the stream: state between cells, one stream for all of them', async () => {
    const { env, counts } = pluginEnvironment({ stream: 'works' });
    const made = executor(true);
    const context = makeToolContext({ environment: env });
    await made.execute({ sessionId: 'p2', context, code: 'kept = "yes"' });
    const second = await made.execute({ sessionId: 'p2', context, code: 'print(kept)' });
    expect(second.output).toBe('yes\n');
    expect(second.kernel).toMatchObject({ mode: 'session', reused: true, execution_count: 2 });
    expect(counts).toEqual({ execute: 0, streams: 1 });
    await made.resetSession('p2');
  });

  it('holds a streamed script to code_execution.max_rpc_connections: past it a connection is told why and closed', async () => {
    const { env } = pluginEnvironment({ stream: 'works' });
    const made = createCodeExecutor({ home: tempDir('hermes-plugin-home-'), registry, config: { code_execution: { session_kernels: false, max_rpc_connections: 4 } } });
    executors.push(made);
    const result = await made.execute({
      sessionId: 'p5',
      context: makeToolContext({ environment: env }),
      code: [
        'import os, socket',
        'from hermes_tools import web_search',
        'socks = []',
        'for _ in range(7):',
        '    s = socket.socket(socket.AF_UNIX)',
        '    s.connect(os.environ["HERMES_RPC_SOCKET"])',
        '    s.settimeout(5)',
        '    socks.append(s)',
        'refused = 0',
        'for s in socks[4:]:',
        '    line = s.makefile("rb").readline()',
        '    refused += b"RPC connection refused" in line',
        'for s in socks:',
        '    s.close()',
        'import time',
        'time.sleep(0.5)  # the closes reach the gateway\'s server through the stream',
        'print(refused, web_search(query="after")["echoed"])',
      ].join('\n'),
    });
    expect(result, JSON.stringify(result)).toMatchObject({ status: 'success', output: '3 after\n' });
  });

  for (const failure of ['throws', 'exits'] as const) {
    it(`falls back to the file transport when openStream ${failure === 'throws' ? 'throws' : 'ends before the runner starts'}`, async () => {
      const { env, counts } = pluginEnvironment({ stream: failure });
      const result = await executor(false).execute({ sessionId: `p3-${failure}`, context: makeToolContext({ environment: env }), code });
      expect(result, JSON.stringify(result)).toMatchObject({ status: 'success', tool_calls_made: 3, output: "['0', '1', '2']\n" });
      expect(counts.streams).toBe(1);
      expect(counts.execute).toBeGreaterThan(1);
    });
  }

  it('uses the file transport for an environment without openStream', async () => {
    const { env, counts } = pluginEnvironment();
    const result = await executor(false).execute({ sessionId: 'p4', context: makeToolContext({ environment: env }), code });
    expect(result.output).toBe("['0', '1', '2']\n");
    expect(counts.streams).toBe(0);
    expect(counts.execute).toBeGreaterThan(1);
  });
});
