import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { SshEnvironment } from '../../../src/environments/ssh/index.js';
import { startSshd, type TestSshd } from '../../helpers/sshd.js';
import type { ResourceLimits } from '../../../src/environments/limits.js';

export interface ConnectOptions {
  cwd?: string;
  timeout?: number;
  childEnv?: Record<string, string>;
  persistent?: boolean;
  graceMs?: number;
  limits?: ResourceLimits;
}

/** An SshEnvironment on the test sshd; `childEnv` stands for the gateway's scrubbed set. */
export function connectTo(sshd: TestSshd, options: ConnectOptions = {}): Promise<SshEnvironment> {
  return SshEnvironment.connect({
    target: { host: sshd.host, user: sshd.user, port: sshd.port, key: sshd.key, persistent: options.persistent ?? true, connectTimeout: 5 },
    hermesHome: sshd.dir,
    cwd: options.cwd ?? '',
    timeout: options.timeout ?? 30,
    childEnv: () => options.childEnv ?? { LANG: 'C.UTF-8' },
    maxOutputBytes: 50_000,
    graceMs: options.graceMs ?? 1000,
    ...(options.limits ? { limits: options.limits } : {}),
  });
}

/** What a describe group shares: the sshd, its working folder (the environment's cwd) and the environment. */
export interface SshGroup {
  readonly sshd: TestSshd;
  readonly work: string;
  readonly env: SshEnvironment;
}

/**
 * Call inside a describe: before its tests, a real sshd, a fresh temp folder (named from
 * `prefix`) and an SshEnvironment working in it; after them, all three are gone.
 */
export function sshEnvironmentPerGroup(prefix: string, options: Omit<ConnectOptions, 'cwd'> = {}): SshGroup {
  let ready: SshGroup | undefined;
  let sshd: TestSshd | undefined;
  let work: string | undefined;
  beforeAll(async () => {
    sshd = await startSshd();
    work = mkdtempSync(join(tmpdir(), prefix));
    ready = { sshd, work, env: await connectTo(sshd, { ...options, cwd: work }) };
  });
  afterAll(async () => {
    await ready?.env.cleanup();
    await sshd?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  const get = (): SshGroup => {
    if (!ready) throw new Error('the ssh group is not up: its beforeAll failed or has not run');
    return ready;
  };
  return {
    get sshd() { return get().sshd; },
    get work() { return get().work; },
    get env() { return get().env; },
  };
}
