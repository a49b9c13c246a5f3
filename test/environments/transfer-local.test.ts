import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEnvironment } from '../../src/environments/index.js';
import { uploadTo } from '../../src/environments/transfer/index.js';
import { tempDir } from '../helpers/tool-context.js';
import { transferCases, type TransferTarget } from './transfer-cases.js';

describe('files in and out of the local backend (this host\'s file system)', () => {
  let target: TransferTarget;
  let env: LocalEnvironment;

  beforeAll(() => {
    const cwd = tempDir('hermes-transfer-local-');
    env = new LocalEnvironment({ cwd, timeout: 30, childEnv: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' }) });
    target = { env, dir: join(cwd, 'files') };
  });

  afterAll(async () => {
    await env.cleanup();
  });

  transferCases(() => target);

  it('resolves a relative path from the working folder and replaces a symlink rather than writing through it', async () => {
    const victim = join(tempDir('hermes-transfer-victim-'), 'victim.txt');
    writeFileSync(victim, 'original\n');
    symlinkSync(victim, join(env.cwd, 'link.txt'));
    const result = await uploadTo(env, Buffer.from('new\n'), 'link.txt');
    expect(result).toEqual({ path: join(env.cwd, 'link.txt'), bytes: 4 });
    expect(readFileSync(join(env.cwd, 'link.txt'), 'utf8')).toBe('new\n');
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
    expect(readdirSync(env.cwd).filter((name) => name.startsWith('.hermes-upload-'))).toEqual([]);
  });
});
