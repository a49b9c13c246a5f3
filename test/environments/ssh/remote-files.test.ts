import { beforeAll, describe } from 'vitest';
import { sshdSkipReason } from '../../helpers/sshd.js';
import { sshEnvironmentPerGroup } from './helpers.js';
import { remoteFilesCases, type RemoteFilesTarget } from './remote-files-cases.js';

const missing = sshdSkipReason("the ssh backend's file helper");

describe.runIf(!missing)('the file tools on the ssh backend (a helper on one session of the shared connection)', () => {
  const ssh = sshEnvironmentPerGroup('hermes-ssh-files-');
  let target: RemoteFilesTarget;

  beforeAll(() => {
    const { env, work, sshd } = ssh;
    target = { env, dir: work, sh: async (command) => (await env.execute(command)).output, sessionTmp: sshd.tmp };
  });

  remoteFilesCases(() => target);
});
