import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { createCodeExecutor, type DefaultCodeExecutor } from '../../../src/execute-code/index.js';
import { makeToolContext, tempDir } from '../../helpers/tool-context.js';
import { scriptToolsWithEchoSearch } from '../../helpers/script-registry.js';
import { engineSkipReason, startTestContainer } from '../../helpers/container-engine.js';
import { filesOnly, sixToolCallsScript } from '../../execute-code/remote/helpers.js';

const missing = await engineSkipReason();
if (missing) console.warn(`execute_code on a real Docker engine cannot run here: ${missing}`);

describe.runIf(!missing)('execute_code in a real container without its stream (file transport)', () => {
  let env: DockerEnvironment;
  let home: string;
  const executors: DefaultCodeExecutor[] = [];
  const registry = scriptToolsWithEchoSearch();
  const executor = (kernels: boolean) => {
    const made = createCodeExecutor({ home, registry, config: { code_execution: { session_kernels: kernels } } });
    executors.push(made);
    return made;
  };
  const context = (signal?: AbortSignal) => makeToolContext({ environment: filesOnly(env), home, signal });
  /** The folders execute_code made in the container's /tmp. */
  const remoteFolders = async () => (await env.execute('ls -A /tmp')).output.split('\n').filter((name) => /^hermes-(rexec|rkernel)-/.test(name));

  beforeAll(async () => {
    home = tempDir('hermes-docker-exec-home-');
    env = await startTestContainer(home, 'docker-exec');
  }, 300_000);

  afterAll(async () => {
    await Promise.all(executors.map((made) => made.close()));
    await env?.cleanup();
  });

  it('runs a one-shot script in /workspace whose tool calls reach the gateway, and removes its folder', async () => {
    const result = await executor(false).execute({
      sessionId: 'd1',
      context: context(),
      code: sixToolCallsScript('hello from the container', 'cat /etc/debian_version >/dev/null && echo from-terminal'),
    });
    expect(result, JSON.stringify(result)).toMatchObject({ status: 'success', tool_calls_made: 6 });
    const lines = result.output.trim().split('\n');
    expect(lines[0]).toBe('/workspace');
    expect(lines[1]).toBe("['q0', 'q1', 'q2']");
    expect(lines[2]).toContain('hello from the container');
    expect(lines[3]).toBe('from-terminal');
    expect((await env.execute('cat /workspace/made.txt')).output).toBe('hello from the container');
    expect(await remoteFolders()).toEqual([]);
  }, 120_000);

  it('reports a failing script with its error, output and exit code', async () => {
    const result = await executor(false).execute({ sessionId: 'd2', context: context(), code: 'print("before")\nraise ValueError("bad")' });
    expect(result.status).toBe('error');
    expect(result.exit_code).toBe(1);
    expect(result.error).toContain('ValueError: bad');
    expect(result.output).toContain('before');
  }, 60_000);

  it('kills the script inside the container when a new message interrupts it', async () => {
    const controller = new AbortController();
    const running = executor(false).execute({
      sessionId: 'd3', context: context(controller.signal),
      code: 'import os, time\nopen("/workspace/script.pid", "w").write(str(os.getpid()))\ntime.sleep(300)',
    });
    let pid = '';
    for (let i = 0; i < 200 && !pid; i++) pid = (await env.execute('cat /workspace/script.pid 2>/dev/null')).output.trim();
    expect(pid).toMatch(/^\d+$/);
    controller.abort('user sent a new message');
    const result = await running;
    expect(result.status).toBe('interrupted');
    expect(result.output).toContain('[execution interrupted — user sent a new message]');
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) alive = (await env.execute(`kill -0 ${pid} 2>/dev/null`)).exit_code === 0;
    expect(alive).toBe(false);
  }, 120_000);

  it('keeps state between calls in a session kernel in the container, and removes its folder on reset', async () => {
    const made = executor(true);
    const first = await made.execute({ sessionId: 'k1', context: context(), code: 'from hermes_tools import web_search\nx = web_search(query="kept")["echoed"]\nprint("set")' });
    expect(first.status).toBe('success');
    expect(first.kernel).toMatchObject({ mode: 'session', reused: false, execution_count: 1 });
    expect(await remoteFolders()).toEqual([expect.stringMatching(/^hermes-rkernel-/)]);
    const second = await made.execute({ sessionId: 'k1', context: context(), code: 'import os\nprint(x * 2, os.getcwd())' });
    expect(second.output).toBe('keptkept /workspace\n');
    expect(second.kernel).toMatchObject({ mode: 'session', reused: true, execution_count: 2 });
    await made.resetSession('k1');
    expect(await remoteFolders()).toEqual([]);
  }, 120_000);
});
