import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApprovalQueue, type ApprovalPerson } from '../../src/approvals/index.js';
import { findExecutable } from '../../src/environments/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import type { ToolContext } from '../../src/tools/index.js';
import { checkScript } from '../../src/tools/builtin/index.js';
import { makeToolContext, shellOnly } from '../helpers/tool-context.js';

/*
 * approvals.execute_code: ask, through the real execute_code tool and Python: a script that
 * creates a marker file shows whether it ran.
 */
const hasPython = findExecutable('python3') !== undefined;
const ADA: ApprovalPerson = { platform: 'test', id: 'ada' };

async function run(approvals: ConfigOverrides['approvals'], answer: (queue: ApprovalQueue) => void, environment?: (ctx: ToolContext) => Promise<ToolContext>) {
  const { createCodeExecutor, executeCodeTool } = await import('../../src/execute-code/index.js');
  const queue = new ApprovalQueue({ timeoutMs: 60_000 });
  let ctx = makeToolContext({
    config: { approvals },
    requestApproval: (request) => queue.ask({ sessionKey: 't', request, requester: ADA }).then((outcome) => outcome.kind === 'approved'),
  });
  if (environment) ctx = await environment(ctx);
  const marker = join(ctx.environment.cwd, 'ran.txt');
  const code = `open(${JSON.stringify(marker)}, "w").write("x")\nprint("script ran")`;
  const executor = createCodeExecutor({ loaded: { config: ctx.config, paths: ctx.paths, warnings: [] } });
  try {
    const running = executeCodeTool(executor, ctx.config).handler({ code }, ctx);
    for (let i = 0; i < 100 && !queue.pending('t'); i++) await sleep(10);
    const asked = queue.pending('t');
    const ranBeforeAnswer = existsSync(marker);
    answer(queue);
    const result = (await running) as { output?: string; error?: string };
    return { asked, ranBeforeAnswer, result, ran: existsSync(marker), code };
  } finally {
    await executor.close();
  }
}

describe.runIf(hasPython || process.env.CI === 'true')('approvals.execute_code', () => {
  it('ask: the whole script waits, shown to the user, and runs only after approval', async () => {
    const { asked, ranBeforeAnswer, result, ran, code } = await run({ execute_code: 'ask' }, (queue) => queue.answer('t', ADA, { approved: true, scope: 'once' }));
    expect(asked).toMatchObject({ kind: 'script', command: code, reason: 'runs a Python script on this host' });
    expect(ranBeforeAnswer).toBe(false);
    expect(result.output).toBe('script ran\n');
    expect(ran).toBe(true);
  });

  it('ask: a denied script never starts', async () => {
    const { asked, result, ran } = await run({ execute_code: 'ask' }, (queue) => queue.answer('t', ADA, { approved: false }));
    expect(asked).toBeDefined();
    expect(result.error).toMatch(/^execute_code: not run: the user did not approve it \(runs a Python script on this host\)/);
    expect(ran).toBe(false);
  });

  it('off (the default) runs scripts without asking', async () => {
    const { asked, result, ran } = await run({}, () => {});
    expect(asked).toBeUndefined();
    expect(result.output).toBe('script ran\n');
    expect(ran).toBe(true);
  });

  it('ask does not ask on a backend that runs elsewhere (no hostCommand), nor with approvals.mode off', async () => {
    let asked = 0;
    const requestApproval = async () => (asked++, false);
    const remote = makeToolContext({ config: { approvals: { execute_code: 'ask' } }, requestApproval });
    expect(await checkScript('print(1)', { ...remote, environment: shellOnly(remote.environment) })).toEqual({ allowed: true });
    const off = makeToolContext({ config: { approvals: { execute_code: 'ask', mode: 'off' } }, requestApproval });
    expect(await checkScript('print(1)', off)).toEqual({ allowed: true });
    expect(asked).toBe(0);
    // The same settings on this host do ask.
    expect(await checkScript('print(1)', remote)).toMatchObject({ allowed: false });
    expect(asked).toBe(1);
  });
});
