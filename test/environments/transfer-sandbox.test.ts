import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentManager, findExecutable, loadProviderRegistry, type Environment } from '../../src/environments/index.js';
import { downloadFrom, uploadTo } from '../../src/environments/transfer/index.js';
import { testSetup } from './helpers.js';
import { listing, transferCases, type TransferTarget } from './transfer-cases.js';

const ready = process.platform === 'linux' && findExecutable('bwrap') !== undefined;
if (!ready && process.env.CI !== 'true') console.log('sandbox transfer tests skipped: bubblewrap (bwrap) is not installed');

describe.runIf(ready || process.env.CI === 'true')('files in and out of the sandbox backend (through what the sandbox sees)', () => {
  let manager: EnvironmentManager;
  let env: Environment;
  let target: TransferTarget;
  // Outside /tmp, as a user's files are: the sandbox's private /tmp must not be what hides them.
  const outside = mkdtempSync('/var/tmp/hermes-transfer-outside-');
  const secret = join(outside, 'secret.txt');
  const hostFolder = join(outside, 'folder');

  beforeAll(async () => {
    writeFileSync(secret, 'host secret\n');
    mkdirSync(hostFolder);
    const setup = testSetup({ terminal: { backend: 'sandbox' } });
    const { registry } = await loadProviderRegistry(setup);
    manager = new EnvironmentManager({ ...setup, registry });
    env = await manager.environmentFor('transfer');
    target = { env, dir: join(env.cwd, 'files') };
  });

  afterAll(async () => {
    await manager?.closeAll();
    rmSync(outside, { recursive: true, force: true });
  });

  transferCases(() => target);

  it('moves the bytes inside the sandbox: what a command there reads is what was uploaded', async () => {
    await uploadTo(env, Buffer.from('seen inside\n'), 'inside.txt');
    const result = await env.execute('cat inside.txt; hostname');
    expect(result.output).toBe('seen inside\nhermes-sandbox\n');
  });

  it('does not read a host file through a symlink in the workspace, nor through /proc/1/root', async () => {
    symlinkSync(secret, join(env.cwd, 'leak.txt'));
    symlinkSync(`/proc/1/root${secret}`, join(env.cwd, 'leak-proc.txt'));
    for (const name of ['leak.txt', 'leak-proc.txt', secret]) {
      const read = downloadFrom(env, name).then((stream) => buffer(stream)).then((data) => data.toString());
      await expect(read).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('does not let an upload land outside the sandbox through a symlinked folder or file', async () => {
    symlinkSync(hostFolder, join(env.cwd, 'escape'));
    symlinkSync(secret, join(env.cwd, 'overwrite.txt'));
    // The folder link resolves in the sandbox's view, where the host folder is not there.
    await expect(uploadTo(env, Buffer.from('planted\n'), 'escape/planted.txt')).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(readdirSync(hostFolder)).toEqual([]);
    // A file link is replaced by the upload, never written through.
    await uploadTo(env, Buffer.from('replaced\n'), 'overwrite.txt');
    expect(readFileSync(secret, 'utf8')).toBe('host secret\n');
    expect(readFileSync(join(env.cwd, 'overwrite.txt'), 'utf8')).toBe('replaced\n');
    // Up and out of the workspace by `..`: the host folder above it is not in the view (here,
    // under /tmp, the name is in the sandbox's private /tmp; under HERMES_HOME it is read-only).
    await uploadTo(env, Buffer.from('x'), '../above-workspace.txt').catch((error: unknown) => expect(error).toMatchObject({ code: 'EROFS' }));
    expect(existsSync(join(env.cwd, '..', 'above-workspace.txt'))).toBe(false);
    // The system is read-only inside, whatever the gateway's user could do on the host.
    await expect(uploadTo(env, Buffer.from('x'), '/etc/hermes-planted')).rejects.toMatchObject({ code: 'EROFS' });
    expect(existsSync('/etc/hermes-planted')).toBe(false);
    expect(await listing(env, env.cwd)).not.toContain('.hermes-upload-');
  });
});
