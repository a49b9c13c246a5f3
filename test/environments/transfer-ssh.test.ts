import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uploadTo } from '../../src/environments/transfer/index.js';
import { sshdSkipReason } from '../helpers/sshd.js';
import { sshEnvironmentPerGroup } from './ssh/helpers.js';
import { transferCases, type TransferTarget } from './transfer-cases.js';

const missing = sshdSkipReason('ssh transfer tests');

describe.runIf(!missing)('files in and out of the ssh backend (a cat stream over the shared connection)', () => {
  const ssh = sshEnvironmentPerGroup('hermes-transfer-ssh-');

  transferCases((): TransferTarget => ({ env: ssh.env, dir: join(ssh.work, 'files') }));

  it('runs the transfer over the master connection with only a fixed program on the command line: the path travels on stdin', async () => {
    const before = ssh.env.commandLines.length;
    await uploadTo(ssh.env, Buffer.from('quiet\n'), 'secret-project-name.txt');
    const lines = ssh.env.commandLines.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0].join(' ')).toContain(`ControlPath=${ssh.env.controlPath}`);
    expect(lines[0].join(' ')).not.toContain('secret-project-name');
    expect((await ssh.env.execute('cat secret-project-name.txt')).output).toBe('quiet\n');
  });
});
