import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApprovalBroker } from '../../src/approvals/index.js';
import { terminalTool } from '../../src/tools/builtin/index.js';
import { EnvironmentManager, LocalEnvironment, ProviderRegistry, buildChildEnv, findExecutable } from '../../src/environments/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import { makeToolContext, tempDir } from '../helpers/tool-context.js';

/*
 * Through the real terminal tool: a risky command deletes a real file, so whether it ran is
 * visible on disk. `marker` exists until `rm -rf` (recursive delete outside /tmp) runs.
 */
function setup(options: { approvals?: ConfigOverrides['approvals']; broker?: ApprovalBroker; noAsk?: boolean; signal?: AbortSignal } = {}) {
  const cwd = tempDir('hermes-approve-');
  const victim = join(cwd, 'victim');
  writeFileSync(victim, 'data');
  const broker = options.broker ?? new ApprovalBroker({ timeoutMs: 60_000 });
  const ctx = makeToolContext({
    cwd,
    config: { approvals: options.approvals ?? {} },
    signal: options.signal,
    ...(options.noAsk ? {} : { requestApproval: (request) => broker.request('thread-1', request, options.signal) }),
  });
  // `rm -rf` of an absolute path outside /tmp asks; the folder lives under /tmp, so use `..`.
  const risky = `rm -rf ../${cwd.split('/').pop()}/victim && echo removed`;
  return { ctx, broker, victim, risky, tool: terminalTool() };
}

async function waitForPending(broker: ApprovalBroker, key: string) {
  for (let i = 0; i < 200 && !broker.pending(key); i++) await sleep(10);
  expect(broker.pending(key)).toBeDefined();
}

describe('terminal approvals', () => {
  it('blocks a floor command without asking, even with approvals off', async () => {
    for (const mode of ['on', 'off'] as const) {
      let asked = false;
      const ctx = makeToolContext({ config: { approvals: { mode } }, requestApproval: async () => ((asked = true), true) });
      const result = (await terminalTool().handler({ command: 'echo start; sudo rm -rf --no-preserve-root /' }, ctx)) as { error: string };
      expect(result.error).toMatch(/^terminal: blocked: recursive delete of \/ .*never run here/);
      expect(asked).toBe(false);
    }
  });

  it('waits for approval, then runs the risky command after /approve', async () => {
    const { ctx, broker, victim, risky, tool } = setup();
    const running = tool.handler({ command: risky }, ctx);
    await waitForPending(broker, 'thread-1');
    expect(broker.pending('thread-1')?.reason).toMatch(/recursive delete/);
    expect(existsSync(victim)).toBe(true);
    broker.resolve('thread-1', true);
    expect(await running).toEqual({ output: 'removed\n', exit_code: 0 });
    expect(existsSync(victim)).toBe(false);
  });

  it('refuses after /deny', async () => {
    const { ctx, broker, victim, risky, tool } = setup();
    const running = tool.handler({ command: risky }, ctx);
    await waitForPending(broker, 'thread-1');
    broker.resolve('thread-1', false);
    expect(((await running) as { error: string }).error).toMatch(/did not approve it/);
    expect(existsSync(victim)).toBe(true);
  });

  it('refuses after approvals.timeout without an answer', async () => {
    const { ctx, victim, risky, tool } = setup({ approvals: { timeout: 0.2 }, broker: new ApprovalBroker({ timeoutMs: 60_000 }) });
    expect(((await tool.handler({ command: risky }, ctx)) as { error: string }).error).toMatch(/denied or no answer in time/);
    expect(existsSync(victim)).toBe(true);
  });

  it('refuses at once when the turn is interrupted during the wait', async () => {
    const controller = new AbortController();
    const { ctx, broker, victim, risky, tool } = setup({ signal: controller.signal });
    const running = tool.handler({ command: risky }, ctx);
    await waitForPending(broker, 'thread-1');
    controller.abort('user sent a new message');
    expect(((await running) as { error: string }).error).toMatch(/interrupted/);
    expect(broker.pending('thread-1')).toBeUndefined();
    expect(existsSync(victim)).toBe(true);
  });

  it('refuses a risky command when there is nobody to ask', async () => {
    const { ctx, victim, risky, tool } = setup({ noAsk: true });
    expect(((await tool.handler({ command: risky }, ctx)) as { error: string }).error).toMatch(/no one to ask/);
    expect(existsSync(victim)).toBe(true);
  });

  it('runs risky commands without asking when approvals.mode is off', async () => {
    const { ctx, broker, victim, risky, tool } = setup({ approvals: { mode: 'off' } });
    expect(await tool.handler({ command: risky }, ctx)).toEqual({ output: 'removed\n', exit_code: 0 });
    expect(broker.pending('thread-1')).toBeUndefined();
    expect(existsSync(victim)).toBe(false);
  });

  it('skips asking on a backend with skipContainerGuards, but never the floor', async () => {
    const cwd = tempDir('hermes-container-');
    writeFileSync(join(cwd, 'victim'), 'data');
    const registry = new ProviderRegistry();
    registry.register({
      name: 'boxlike',
      isContainer: true,
      createEnvironment: ({ cwd: where, timeout }) => new LocalEnvironment({ cwd: where, timeout, childEnv: () => buildChildEnv() }),
    }, 'test-plugin');
    const base = makeToolContext({ cwd });
    const manager = new EnvironmentManager({
      config: { ...base.config, terminal: { ...base.config.terminal, backend: 'boxlike', cwd } },
      paths: base.paths, registry,
    });
    let asked = false;
    const ctx = { ...base, environment: await manager.environmentFor('s'), requestApproval: async () => ((asked = true), false) };
    const tool = terminalTool();
    expect(await tool.handler({ command: `rm -rf ../${cwd.split('/').pop()}/victim && echo removed` }, ctx)).toEqual({ output: 'removed\n', exit_code: 0 });
    expect(asked).toBe(false);
    expect(((await tool.handler({ command: 'mkfs.ext4 /dev/sda1' }, ctx)) as { error: string }).error).toMatch(/blocked: formats a disk/);
    // A throwing skipContainerGuards keeps approvals on.
    registry.register({
      name: 'fragile',
      isContainer: true,
      get skipContainerGuards(): boolean {
        throw new Error('broken');
      },
      createEnvironment: ({ cwd: where, timeout }) => new LocalEnvironment({ cwd: where, timeout, childEnv: () => buildChildEnv() }),
    }, 'test-plugin');
    writeFileSync(join(cwd, 'victim'), 'data');
    const fragile = new EnvironmentManager({
      config: { ...base.config, terminal: { ...base.config.terminal, backend: 'fragile', cwd } },
      paths: base.paths, registry,
    });
    const fragileCtx = { ...ctx, environment: await fragile.environmentFor('s') };
    expect(((await tool.handler({ command: `rm -rf ../${cwd.split('/').pop()}/victim` }, fragileCtx)) as { error: string }).error).toMatch(/did not approve/);
    expect(asked).toBe(true);
    expect(existsSync(join(cwd, 'victim'))).toBe(true);
  });
});

describe('approvals for scripts calling hermes_tools.terminal', () => {
  it.runIf(process.env.CI === 'true' || findExecutable('python3') !== undefined)(
    'blocks the floor, waits for approval of a risky command, and runs it after /approve',
    async () => {
      const { createCodeExecutor } = await import('../../src/execute-code/index.js');
      const broker = new ApprovalBroker({ timeoutMs: 60_000 });
      const { ctx, victim } = setup({ broker });
      ctx.requestApproval = (request) => broker.request('thread-1', request, ctx.signal);
      const executor = createCodeExecutor({ loaded: { config: ctx.config, paths: ctx.paths, warnings: [] } });
      try {
        const name = ctx.environment.cwd.split('/').pop();
        const code = [
          'from hermes_tools import terminal',
          'print(terminal("rm -rf /")["error"][:26])',
          `print(terminal("rm -rf ../${name}/victim && echo removed")["output"].strip())`,
        ].join('\n');
        const running = executor.execute({ code, sessionId: 'thread-1', context: ctx });
        await waitForPending(broker, 'thread-1');
        expect(existsSync(victim)).toBe(true);
        broker.resolve('thread-1', true);
        const result = await running;
        expect(result.output).toBe('terminal: blocked: recursi\nremoved\n');
        expect(existsSync(victim)).toBe(false);
      } finally {
        await executor.close();
      }
    },
  );
});
