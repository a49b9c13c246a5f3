import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { configSchema, deepMerge, hermesPaths, type ConfigOverrides } from '../../src/config/index.js';
import { EnvironmentManager, findExecutable, loadProviderRegistry } from '../../src/environments/index.js';
import { createCodeExecutor, type DefaultCodeExecutor } from '../../src/execute-code/index.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { silentLogger } from '../../src/shared/index.js';
import { survivorsOf, waitForProcess } from '../helpers/processes.js';

/*
 * A cell owns what it starts: a terminal() a script's thread left running dies with the cell,
 * however the cell ends, and with the gateway, even when it is SIGKILLed.
 */

const hasBwrap = process.platform === 'linux' && findExecutable('bwrap') !== undefined;
const backends = ['local', ...(hasBwrap || process.env.CI === 'true' ? ['sandbox'] : [])];
if (!backends.includes('sandbox')) console.log('sandbox cases skipped: bubblewrap (bwrap) is not installed');

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

let counter = 0;
/** A `sleep` whose argument no other process has, so the test can find it. */
const marker = () => `${300 + (++counter % 50)}.${process.pid}${Date.now() % 100000}`;

/** A script whose thread runs `terminal("sleep <mark>")` and then does `after`. */
function holdingScript(mark: string, after: string): string {
  return [
    'import threading, time',
    'from hermes_tools import terminal',
    `threading.Thread(target=lambda: terminal("touch ${mark}.started; sleep ${mark}"), daemon=True).start()`,
    after,
  ].join('\n');
}

async function setup(backend: string, overrides: ConfigOverrides = {}) {
  const home = mkdtempSync(join(tmpdir(), 'hermes-cell-home-'));
  const cwd = mkdtempSync(join(tmpdir(), 'hermes-cell-cwd-'));
  const config = configSchema.parse(deepMerge({ terminal: { backend, cwd } }, overrides));
  const paths = hermesPaths(home);
  const { registry } = await loadProviderRegistry({ config, paths });
  const manager = new EnvironmentManager({ config, paths, registry });
  const executor: DefaultCodeExecutor = createCodeExecutor({ loaded: { config, paths, warnings: [] } });
  closers.push(() => executor.close(), () => manager.closeAll());
  const run = async (code: string, signal = new AbortController().signal) => {
    const environment = await manager.environmentFor('s');
    return executor.execute({
      code, sessionId: 's', signal,
      context: { sessionId: 's', signal, environment, logger: silentLogger(), config, paths },
    });
  };
  return { run };
}

describe.each(backends)('a cell owns the terminal() commands it starts (%s)', (backend) => {
  for (const kernels of [true, false]) {
    const mode = kernels ? 'session kernel' : 'one-shot script';

    it(`kills them when the cell times out (${mode})`, async () => {
      const { run } = await setup(backend, { code_execution: { session_kernels: kernels, timeout: 2, kill_grace: 1 } });
      const mark = marker();
      const result = await run(holdingScript(mark, 'time.sleep(60)'));
      expect(result.status).toBe('timeout');
      expect(await survivorsOf(mark)).toEqual([]);
    });

    it(`kills them when the turn is interrupted (${mode})`, async () => {
      const { run } = await setup(backend, { code_execution: { session_kernels: kernels } });
      const mark = marker();
      const controller = new AbortController();
      const running = run(holdingScript(mark, 'time.sleep(60)'), controller.signal);
      expect((await waitForProcess(mark)).length).toBeGreaterThan(0);
      controller.abort('user sent a new message');
      const result = await running;
      expect(result.status).toBe('interrupted');
      expect(result.output).toContain('[execution interrupted — user sent a new message]');
      expect(await survivorsOf(mark)).toEqual([]);
    });

    it(`kills them when the cell ends while they still run (${mode})`, async () => {
      const { run } = await setup(backend, { code_execution: { session_kernels: kernels } });
      const mark = marker();
      const script = holdingScript(mark, `import os\nwhile not os.path.exists("${mark}.started"): time.sleep(0.05)\nprint("left it running")`);
      const result = await run(script);
      expect(result.status).toBe('success');
      expect(result.output).toBe('left it running\n');
      expect(await survivorsOf(mark)).toEqual([]);
    });
  }

  it('clamps a model-given terminal timeout to terminal.max_timeout', async () => {
    const { run } = await setup(backend, { terminal: { max_timeout: 1 } });
    const result = await run('from hermes_tools import terminal\nr = terminal("sleep 30; echo late", timeout=10000)\nprint(r["exit_code"], "late" in r["output"])');
    expect(result.output).toBe('124 False\n');
  });

  it('leaves nothing behind when the gateway is SIGKILLed mid-cell', async () => {
    const mark = marker();
    const home = mkdtempSync(join(tmpdir(), 'hermes-cell-kill-'));
    // A gateway in a child process: the built executor running a cell that holds a terminal().
    const program = `
      const { createCodeExecutor } = await import(${JSON.stringify(join(packageRoot(), 'dist/src/execute-code/index.js'))});
      const envs = await import(${JSON.stringify(join(packageRoot(), 'dist/src/environments/index.js'))});
      const cfg = await import(${JSON.stringify(join(packageRoot(), 'dist/src/config/index.js'))});
      const config = cfg.configSchema.parse({ terminal: { backend: ${JSON.stringify(backend)}, cwd: ${JSON.stringify(home)} } });
      const paths = cfg.hermesPaths(${JSON.stringify(home)});
      const { registry } = await envs.loadProviderRegistry({ config, paths });
      const manager = new envs.EnvironmentManager({ config, paths, registry });
      const environment = await manager.environmentFor('s');
      const executor = createCodeExecutor({ loaded: { config, paths, warnings: [] } });
      const signal = new AbortController().signal;
      const logger = { child: () => logger, debug() {}, info() {}, warn() {}, error() {} };
      await executor.execute({ code: process.argv[1], sessionId: 's', signal, context: { sessionId: 's', signal, environment, logger, config, paths } });
    `;
    const gateway = execa('node', ['--input-type=module', '-e', program, holdingScript(mark, 'time.sleep(600)')], { reject: false });
    const found = await waitForProcess(mark, 20_000);
    gateway.kill('SIGKILL');
    const ended = await gateway;
    expect(found.length, `the child gateway never ran the command: ${String(ended.stderr)}`).toBeGreaterThan(0);
    expect(await survivorsOf(mark)).toEqual([]);
  });
});
