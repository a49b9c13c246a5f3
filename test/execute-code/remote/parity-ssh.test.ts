import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeExecutor, type DefaultCodeExecutor } from '../../../src/execute-code/index.js';
import type { SshEnvironment } from '../../../src/environments/ssh/index.js';
import { REDACTED } from '../../../src/shared/redact.js';
import { makeToolContext } from '../../helpers/tool-context.js';
import { startSshd, sshdUnavailable, type TestSshd } from '../../helpers/sshd.js';
import { connectTo } from '../../environments/ssh/helpers.js';

/*
 * The parity fixes on a remote backend (a real sshd on loopback): UTF-8 mode, ANSI stripped
 * and credentials masked in the result, and a remote kernel that outlives a closed stream.
 */
const missing = process.env.CI === 'true' ? undefined : sshdUnavailable();
if (missing) console.warn(`remote parity tests cannot run here: ${missing}`);

describe.runIf(!missing)('parity of execute_code over SSH', () => {
  let sshd: TestSshd;
  let env: SshEnvironment;
  let home: string;
  const executors: DefaultCodeExecutor[] = [];
  const executor = (kernels: boolean) => {
    const made = createCodeExecutor({ home, config: { code_execution: { session_kernels: kernels, timeout: 60 }, terminal: { ssh: { direct_channel: false } } } });
    executors.push(made);
    return made;
  };
  const run = (made: DefaultCodeExecutor, sessionId: string, code: string) =>
    made.execute({ sessionId, code, context: makeToolContext({ environment: env, home, sessionId }) });

  beforeAll(async () => {
    sshd = await startSshd();
    home = mkdtempSync(join(tmpdir(), 'hermes-ssh-parity-home-'));
    env = await connectTo(sshd, { cwd: mkdtempSync(join(tmpdir(), 'hermes-ssh-parity-')) });
  });

  afterAll(async () => {
    await Promise.all(executors.map((made) => made.close()));
    await env?.cleanup();
    await sshd?.stop();
  });

  for (const kernels of [false, true]) {
    it(`a ${kernels ? 'remote kernel' : 'remote one-shot script'} runs in UTF-8 mode, with ANSI stripped and credentials masked`, async () => {
      const made = executor(kernels);
      const result = await run(
        made,
        `utf8-${kernels}`,
        [
          'import sys, os',
          'print(sys.flags.utf8_mode, os.environ.get("PYTHONUTF8"))',
          'print("\\x1b[1;32mgreen\\x1b[0m \\x1b]0;title\\x07done")',
          'print("key", "gh" + "p_" + "Q1w2E3r4T5" * 4)',
        ].join('\n'),
      );
      expect(result.status).toBe('success');
      expect(result.output).toBe(`1 1\ngreen done\nkey ghp_${REDACTED}\n`);
      if (kernels) expect(result.kernel).toMatchObject({ mode: 'session' });
    }, 60_000);
  }

  it('a remote kernel prints again after a cell closed sys.stdout and fd 1', async () => {
    const made = executor(true);
    await run(made, 'closed', 'import os, sys\nkept = 7\nsys.stdout.close()\nos.close(1)');
    const next = await run(made, 'closed', 'print(kept * 6)');
    expect(next).toMatchObject({ status: 'success', output: '42\n', kernel: { reused: true, execution_count: 2 } });
  }, 60_000);
});
