import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LocalEnvironment, ProviderRegistry, tagEnvironment, type Environment, type ExecuteOptions, type ExecuteResult, type TerminalEnvironmentProvider,
} from '../../src/environments/index.js';
import { downloadFrom, uploadTo } from '../../src/environments/transfer/index.js';
import { tempDir } from '../helpers/tool-context.js';
import { binary, listing, transferCases, type TransferTarget } from './transfer-cases.js';

/**
 * A plugin's environment with nothing but the required members: commands run on this host,
 * but it says nothing of its kind (so it counts as remote) and marks its output, as a
 * plugin may. Files can only move through `execute`.
 */
class BareEnvironment implements Environment {
  readonly cwd: string;
  commands = 0;
  constructor(private readonly inner: LocalEnvironment) {
    this.cwd = inner.cwd;
  }

  async execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult> {
    this.commands += 1;
    const result = await this.inner.execute(command, options);
    return { ...result, output: `[bare] ${result.output}` };
  }

  cleanup(): Promise<void> {
    return this.inner.cleanup();
  }
}

function bareEnvironment(): BareEnvironment {
  return new BareEnvironment(new LocalEnvironment({ cwd: tempDir('hermes-transfer-plugin-'), timeout: 60, childEnv: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' }) }));
}

/** The environment as the EnvironmentManager would hand it out: tagged with its (fail-safe) provider. */
function fromProvider(provider: TerminalEnvironmentProvider, env: Environment): Environment {
  const safe = new ProviderRegistry().register(provider, 'test-plugin');
  tagEnvironment(env, safe);
  return env;
}

describe('files in and out of a plugin backend without upload, download or a provider fileTransfer (execute in base64 chunks)', () => {
  let env: BareEnvironment;
  let target: TransferTarget;

  beforeAll(() => {
    env = bareEnvironment();
    target = { env: fromProvider({ name: 'bare_box', createEnvironment: () => env }, env), dir: join(env.cwd, 'files') };
  });

  afterAll(async () => {
    await env.cleanup();
  });

  transferCases(() => target, { bulkTimeoutMs: 180_000 });

  it('goes through execute only, whatever the plugin prints around the output', async () => {
    const before = env.commands;
    await uploadTo(env, Buffer.from('through commands\n'), 'via-execute.txt');
    expect(env.commands).toBeGreaterThan(before);
    expect(readFileSync(join(env.cwd, 'via-execute.txt'), 'utf8')).toBe('through commands\n');
  });
});

describe('files in and out of a plugin backend with a provider fileTransfer', () => {
  const calls: string[] = [];
  let env: BareEnvironment;

  beforeAll(() => {
    env = bareEnvironment();
    // A provider that moves files its own way and ignores maxBytes: the front door must hold the cap anyway.
    fromProvider({
      name: 'api_box',
      createEnvironment: () => env,
      fileTransfer: {
        async upload(_environment, source, remotePath) {
          calls.push(`upload ${remotePath}`);
          const data = await buffer(source);
          await env.execute(`cat > '${remotePath}'`, { stdin: data.toString('latin1') });
        },
        download(_environment, remotePath) {
          calls.push(`download ${remotePath}`);
          return Readable.from([readFileSync(remotePath)]);
        },
      },
    }, env);
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('uses the provider\'s fileTransfer for both directions', async () => {
    await uploadTo(env, Buffer.from('via the api\n'), 'api.txt');
    expect((await buffer(await downloadFrom(env, 'api.txt'))).toString()).toBe('via the api\n');
    expect(calls).toEqual([`upload ${join(env.cwd, 'api.txt')}`, `download ${join(env.cwd, 'api.txt')}`]);
  });

  it('holds the cap both ways when the provider ignores it', async () => {
    await expect(uploadTo(env, Readable.from([binary(600_000), binary(600_000)]), 'over.bin', { maxBytes: 1_000_000 })).rejects.toMatchObject({ code: 'EFBIG', maxBytes: 1_000_000 });
    await uploadTo(env, binary(1_200_000), 'big.bin');
    const stream = await downloadFrom(env, 'big.bin', { maxBytes: 1_000_000 });
    await expect(buffer(stream)).rejects.toMatchObject({ code: 'EFBIG', maxBytes: 1_000_000 });
  });
});

describe('a provider whose fileTransfer throws when read', () => {
  it('counts as having none: files move through execute', async () => {
    const env = bareEnvironment();
    fromProvider({
      name: 'broken_box',
      createEnvironment: () => env,
      get fileTransfer(): never {
        throw new Error('broken getter');
      },
    }, env);
    await uploadTo(env, Buffer.from('still moved\n'), 'fallback.txt');
    expect((await buffer(await downloadFrom(env, 'fallback.txt'))).toString()).toBe('still moved\n');
    expect(await listing(env, env.cwd)).toBe('fallback.txt|');
    await env.cleanup();
  });
});
