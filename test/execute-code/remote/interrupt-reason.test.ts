import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalEnvironment, type Environment } from '../../../src/environments/index.js';
import { createCodeExecutor, type DefaultCodeExecutor } from '../../../src/execute-code/index.js';
import { interruptedNotice } from '../../../src/shared/index.js';
import { makeToolContext, tempDir } from '../../helpers/tool-context.js';
import { waitForPid } from '../../helpers/processes.js';

/**
 * A plugin's backend that runs commands with `execute` only (the file transport) and words
 * its own interrupted results: its output says nothing of `[execution interrupted — …]`.
 */
function terseBackend(): Environment {
  const cwd = tempDir('hermes-terse-box-');
  const local = new LocalEnvironment({ cwd, timeout: 60, childEnv: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' }) });
  return {
    cwd,
    execute: async (command, options) => {
      const result = await local.execute(command, options);
      return result.interrupted ? { ...result, output: 'the box cancelled it\n' } : result;
    },
    cleanup: async () => undefined,
  };
}

describe('an interrupted remote one-shot script', () => {
  const executors: DefaultCodeExecutor[] = [];
  afterAll(async () => {
    await Promise.all(executors.map((made) => made.close()));
  });

  it('names the reason from its own signal, not from what the backend printed', async () => {
    const executor = createCodeExecutor({ home: tempDir('hermes-terse-home-'), config: { code_execution: { session_kernels: false } } });
    executors.push(executor);
    const environment = terseBackend();
    const controller = new AbortController();
    const pidFile = join(environment.cwd, 'started');
    const running = executor.execute({
      sessionId: 'terse',
      context: makeToolContext({ environment, signal: controller.signal }),
      code: `import os, time\nprint("before", flush=True)\nopen(${JSON.stringify(pidFile)}, "w").write(str(os.getpid()))\ntime.sleep(120)`,
    });
    await waitForPid(pidFile, 30_000);
    controller.abort('user sent a new message');
    const result = await running;
    expect(result.status).toBe('interrupted');
    expect(result.error).toBe(interruptedNotice('user sent a new message'));
    expect(result.output).toBe(`before\n${interruptedNotice('user sent a new message')}`);
  }, 60_000);
});
