import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import type { SshEnvironment } from '../../../src/environments/ssh/index.js';
import { startSshd, sshdUnavailable, type TestSshd } from '../../helpers/sshd.js';
import { connectTo } from './helpers.js';
import { remoteFilesCases, type RemoteFilesTarget } from './remote-files-cases.js';

const missing = process.env.CI === 'true' ? undefined : sshdUnavailable();
if (missing) console.warn(`the ssh backend's file helper cannot be tested here: ${missing}`);

describe.runIf(!missing)('the file tools on the ssh backend (a helper on one session of the shared connection)', () => {
  let sshd: TestSshd;
  let env: SshEnvironment;
  let dir: string;
  let target: RemoteFilesTarget;

  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'hermes-ssh-files-'));
    env = await connectTo(sshd, { cwd: dir });
    target = { env, dir, sh: async (command) => (await env.execute(command)).output, sessionTmp: sshd.tmp };
  });

  afterAll(async () => {
    await env?.cleanup();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  remoteFilesCases(() => target);
});
