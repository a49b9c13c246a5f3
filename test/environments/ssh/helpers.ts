import { SshEnvironment } from '../../../src/environments/ssh/index.js';
import type { TestSshd } from '../../helpers/sshd.js';
import type { ResourceLimits } from '../../../src/environments/limits.js';

/** An SshEnvironment on the test sshd; `childEnv` stands for the gateway's scrubbed set. */
export function connectTo(
  sshd: TestSshd,
  options: { cwd?: string; timeout?: number; childEnv?: Record<string, string>; persistent?: boolean; graceMs?: number; limits?: ResourceLimits } = {},
): Promise<SshEnvironment> {
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
