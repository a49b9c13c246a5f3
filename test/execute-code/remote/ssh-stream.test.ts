import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshEnvironment } from '../../../src/environments/ssh/index.js';
import { startSshd, sshdUnavailable, type TestSshd } from '../../helpers/sshd.js';
import { connectTo } from '../../environments/ssh/helpers.js';
import { createCodeExecutor } from '../../../src/execute-code/index.js';
import { makeToolContext } from '../../helpers/tool-context.js';
import { remoteRunner, streamCases, type StreamBackend } from './stream-cases.js';

const missing = process.env.CI === 'true' ? undefined : sshdUnavailable();
if (missing) console.warn(`execute_code over the SSH stream channel cannot be tested here: ${missing}`);

describe.runIf(!missing)('execute_code over SSH (stream channel: one session on the shared connection)', () => {
  let sshd: TestSshd;
  let env: SshEnvironment;
  let work: string;
  let home: string;
  let backend: StreamBackend;

  beforeAll(async () => {
    sshd = await startSshd();
    work = mkdtempSync(join(tmpdir(), 'hermes-ssh-stream-'));
    home = mkdtempSync(join(tmpdir(), 'hermes-ssh-stream-home-'));
    env = await connectTo(sshd, { cwd: work });
    backend = {
      env,
      commandLines: () => env.commandLines,
      sh: async (command) => (await env.execute(command)).output,
      tmp: sshd.tmp,
      home,
      fixture: { kind: 'ssh', target: { host: sshd.host, user: sshd.user, port: sshd.port, key: sshd.key }, cwd: work },
    };
  });

  afterAll(async () => {
    await env?.cleanup();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  streamCases(() => backend);

  it('runs a one-shot script in a single ssh session whose command line carries only the fixed bootstrap', async () => {
    const { run } = remoteRunner(backend, { kernels: false });
    const before = env.commandLines.length;
    const result = await run('import os\nfrom hermes_tools import web_search\nprint(web_search(query="q")["echoed"], os.getcwd())');
    expect(result.output).toBe(`q ${work}\n`);
    const lines = env.commandLines.slice(before);
    expect(lines).toHaveLength(1);
    const remote = lines[0].at(-1) ?? '';
    expect(remote).toMatch(/^bash --noprofile --norc -c 'IFS= read -r n/);
    expect(lines[0].join(' ')).not.toMatch(/[0-9a-f]{48}/);
  });

  it('says python3 is missing on the backend and names it, with session kernels on or off', async () => {
    const noPython = Object.create(env, {
      openStream: { value: (command: string, options: object) => env.openStream(command.replace('command -v python3', 'command -v python3-not-here'), options) },
    }) as SshEnvironment;
    for (const kernels of [false, true]) {
      const executor = createCodeExecutor({ home, config: { code_execution: { session_kernels: kernels } } });
      const result = await executor.execute({ sessionId: 'nopy', context: makeToolContext({ environment: noPython, home }), code: 'print(1)' });
      await executor.close();
      expect(result.status).toBe('error');
      expect(result.error).toMatch(/needs python3 on the ssh backend \(root@127\.0\.0\.1:\d+\)/);
    }
  });
});
