import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshEnvironment } from '../../src/environments/ssh/index.js';
import { uploadTo } from '../../src/environments/transfer/index.js';
import { startSshd, sshdUnavailable, type TestSshd } from '../helpers/sshd.js';
import { connectTo } from './ssh/helpers.js';
import { transferCases, type TransferTarget } from './transfer-cases.js';

const missing = process.env.CI === 'true' ? undefined : sshdUnavailable();
if (missing) console.warn(`ssh transfer tests cannot run here: ${missing}`);

describe.runIf(!missing)('files in and out of the ssh backend (a cat stream over the shared connection)', () => {
  let sshd: TestSshd;
  let env: SshEnvironment;
  let target: TransferTarget;
  let work: string;

  beforeAll(async () => {
    sshd = await startSshd();
    work = mkdtempSync(join(tmpdir(), 'hermes-transfer-ssh-'));
    env = await connectTo(sshd, { cwd: work });
    target = { env, dir: join(work, 'files') };
  });

  afterAll(async () => {
    await env?.cleanup();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  transferCases(() => target);

  it('runs the transfer over the master connection with only a fixed program on the command line: the path travels on stdin', async () => {
    const before = env.commandLines.length;
    await uploadTo(env, Buffer.from('quiet\n'), 'secret-project-name.txt');
    const lines = env.commandLines.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0].join(' ')).toContain(`ControlPath=${env.controlPath}`);
    expect(lines[0].join(' ')).not.toContain('secret-project-name');
    expect((await env.execute('cat secret-project-name.txt')).output).toBe('quiet\n');
  });
});
