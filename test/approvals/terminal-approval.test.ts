import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApprovalQueue, assessCommand, type ApprovalPerson } from '../../src/approvals/index.js';
import { terminalTool } from '../../src/tools/builtin/index.js';
import { EnvironmentManager, LocalEnvironment, ProviderRegistry, buildChildEnv, findExecutable } from '../../src/environments/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import { makeToolContext, tempDir } from '../helpers/tool-context.js';

/*
 * Through the real terminal tool: a risky command deletes a real file, so whether it ran is
 * visible on disk. `marker` exists until `rm -rf` (recursive delete outside /tmp) runs.
 */
const ADA: ApprovalPerson = { platform: 'test', id: 'ada' };

/** A ToolContext whose requestApproval waits in `queue` for thread-1, as the gateway's does. */
function askIn(queue: ApprovalQueue, signal?: AbortSignal) {
  return (request: Parameters<ApprovalQueue['ask']>[0]['request']) =>
    queue.ask({ sessionKey: 'thread-1', request, requester: ADA, signal }).then((outcome) => outcome.kind === 'approved' || outcome.kind === 'preapproved');
}

function setup(options: { approvals?: ConfigOverrides['approvals']; broker?: ApprovalQueue; noAsk?: boolean; signal?: AbortSignal } = {}) {
  const cwd = tempDir('hermes-approve-');
  const victim = join(cwd, 'victim');
  writeFileSync(victim, 'data');
  const broker = options.broker ?? new ApprovalQueue({ timeoutMs: 60_000 });
  const ctx = makeToolContext({
    cwd,
    config: { approvals: options.approvals ?? {} },
    signal: options.signal,
    ...(options.noAsk ? {} : { requestApproval: askIn(broker, options.signal) }),
  });
  // `rm -rf` of an absolute path outside /tmp asks; the folder lives under /tmp, so use `..`.
  const risky = `rm -rf ../${cwd.split('/').pop()}/victim && echo removed`;
  return { ctx, broker, victim, risky, tool: terminalTool() };
}

async function waitForPending(broker: ApprovalQueue, key: string) {
  for (let i = 0; i < 200 && !broker.pending(key); i++) await sleep(10);
  expect(broker.pending(key)).toBeDefined();
}

/** A folder with a marker in it, for floor commands: they are refused, and were they not, only this would go. */
function throwaway(): string {
  const dir = tempDir('hermes-floor-target-');
  writeFileSync(join(dir, 'marker'), 'x');
  return dir;
}

describe('terminal approvals', () => {
  it('blocks a floor command without asking, even with approvals off', async () => {
    for (const mode of ['on', 'off'] as const) {
      let asked = false;
      const ctx = makeToolContext({ config: { approvals: { mode } }, requestApproval: async () => ((asked = true), true) });
      // Aimed at a throwaway folder, and proven refused first: if the floor ever broke, nothing real would go.
      const command = `echo start; sudo rm -rf --no-preserve-root ${throwaway()}`;
      expect(assessCommand(command).level).toBe('blocked');
      const result = (await terminalTool().handler({ command }, ctx)) as { error: string };
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
    broker.answer('thread-1', ADA, { approved: true, scope: 'once' });
    expect(await running).toEqual({ output: 'removed\n', exit_code: 0 });
    expect(existsSync(victim)).toBe(false);
  });

  it('refuses after /deny', async () => {
    const { ctx, broker, victim, risky, tool } = setup();
    const running = tool.handler({ command: risky }, ctx);
    await waitForPending(broker, 'thread-1');
    broker.answer('thread-1', ADA, { approved: false });
    expect(((await running) as { error: string }).error).toMatch(/did not approve it/);
    expect(existsSync(victim)).toBe(true);
  });

  it('refuses when the queue\'s timeout passes without an answer', async () => {
    const { ctx, victim, risky, tool } = setup({ broker: new ApprovalQueue({ timeoutMs: 200 }) });
    expect(((await tool.handler({ command: risky }, ctx)) as { error: string }).error).toMatch(/denied, no answer in time/);
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

  it('ends the wait and leaves nothing waiting when only the tool call\'s own signal aborts (a script\'s timeout)', async () => {
    const call = new AbortController();
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const { ctx, victim, risky, tool } = setup({ broker: queue });
    // The queue gets no turn signal here: only the request's own (ctx.signal) can end the wait.
    const running = tool.handler({ command: risky }, { ...ctx, signal: call.signal, requestApproval: askIn(queue) });
    await waitForPending(queue, 'thread-1');
    call.abort('execute_code timed out');
    expect(((await running) as { error: string }).error).toMatch(/interrupted while waiting/);
    expect(queue.size('thread-1')).toBe(0);
    expect(queue.answer('thread-1', ADA, { approved: true, scope: 'once' })).toEqual({ kind: 'nothing_waiting' });
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
      const broker = new ApprovalQueue({ timeoutMs: 60_000 });
      const { ctx, victim } = setup({ broker });
      const executor = createCodeExecutor({ loaded: { config: ctx.config, paths: ctx.paths, warnings: [] } });
      try {
        const name = ctx.environment.cwd.split('/').pop();
        const floorTarget = throwaway();
        expect(assessCommand(`rm -rf --no-preserve-root ${floorTarget}`).level).toBe('blocked');
        const code = [
          'from hermes_tools import terminal',
          `print(terminal("rm -rf --no-preserve-root ${floorTarget}")["error"][:26])`,
          `print(terminal("rm -rf ../${name}/victim && echo removed")["output"].strip())`,
        ].join('\n');
        const running = executor.execute({ code, sessionId: 'thread-1', context: ctx });
        await waitForPending(broker, 'thread-1');
        expect(existsSync(victim)).toBe(true);
        broker.answer('thread-1', ADA, { approved: true, scope: 'once' });
        const result = await running;
        expect(result.output).toBe('terminal: blocked: recursi\nremoved\n');
        expect(existsSync(victim)).toBe(false);
      } finally {
        await executor.close();
      }
    },
  );
});
