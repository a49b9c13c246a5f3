import type { HermesConfig } from '../../config/schema.js';
import type { HermesPaths } from '../../config/paths.js';
import type { DoctorCheck, ProbeResult, TerminalEnvironmentProvider } from '../provider.js';
import type { CreateEnvironmentOptions, Environment } from '../types.js';
import { findExecutable } from '../which.js';
import type { SshEnvironment, SshEnvironmentOptions } from './ssh-environment.js';
import type { SshTarget } from './ssh-args.js';
import type { Logger } from '../../shared/logger.js';
import { limitsFromConfig } from '../limits.js';

/** The `ssh` backend: commands run on a build box through the system OpenSSH client. */
export class SshProvider implements TerminalEnvironmentProvider {
  readonly name = 'ssh';
  readonly displayName = 'SSH';
  readonly description = 'Run commands on another machine over SSH (system OpenSSH client, shared connection).';
  readonly isRemote = true;
  // Flags equal to SafeProvider's defaults are not restated: not a container, no cache path, no variables stripped.
  readonly sessionIsolatedWhenNonpersistent = false;

  constructor(private readonly deps: { config: HermesConfig; paths: HermesPaths }) {}

  get envDescription(): string {
    const { host } = this.deps.config.terminal.ssh;
    return `Commands run on the remote machine ${host || '(not configured)'} over SSH, not on the gateway's host; files and paths are that machine's.`;
  }

  /** The target from `terminal.ssh`. */
  target(): SshTarget {
    const ssh = this.deps.config.terminal.ssh;
    return { host: ssh.host, user: ssh.user, port: ssh.port, key: ssh.key, persistent: ssh.persistent, connectTimeout: ssh.connect_timeout };
  }

  isAvailable(): boolean {
    return findExecutable('ssh') !== undefined && this.deps.config.terminal.ssh.host !== '';
  }

  probe(): ProbeResult {
    const ssh = findExecutable('ssh');
    if (!ssh) return { ok: false, detail: 'ssh (OpenSSH client) not found on PATH' };
    const { host, user, port } = this.deps.config.terminal.ssh;
    if (!host) return { ok: false, detail: 'terminal.ssh.host is not set' };
    return { ok: true, detail: `${user ? `${user}@` : ''}${host}:${port} via ${ssh}` };
  }

  async doctorChecks(): Promise<DoctorCheck[]> {
    const ssh = findExecutable('ssh');
    if (!ssh) return [{ name: 'ssh: client', ok: false, detail: 'ssh not found on PATH', fix: 'install the OpenSSH client (apt-get install openssh-client)' }];
    const checks: DoctorCheck[] = [{ name: 'ssh: client', ok: true, detail: ssh }];
    const target = this.target();
    if (!target.host) {
      checks.push({ name: 'ssh: host', ok: false, detail: 'terminal.ssh.host is empty', fix: 'hermes config set terminal.ssh.host HOST' });
      return checks;
    }
    try {
      const environment = await connect(this.options({ cwd: '', timeout: 30 }, { ...target, persistent: false }));
      const python = await environment.control('command -v python3', 15_000);
      checks.push({ name: 'ssh: connection', ok: true, detail: `${environment.describe()}, working folder ${environment.cwd}` });
      checks.push({
        name: 'ssh: python3', ok: python.exitCode === 0, required: false,
        detail: python.exitCode === 0 ? python.output.trim() : 'python3 not found on the remote PATH',
        fix: 'install Python 3 on the build box: execute_code needs it there',
      });
    } catch (error) {
      checks.push({ name: 'ssh: connection', ok: false, detail: (error as Error).message, fix: 'check terminal.ssh and that `ssh -p PORT USER@HOST true` works without a prompt' });
    }
    return checks;
  }

  setupInstructions(): string {
    return [
      'The ssh backend runs commands on another machine with your OpenSSH client. Set terminal.ssh.host',
      '(and user, port, key); logins must work without a prompt (a key, BatchMode). New host keys are',
      `remembered in ${this.deps.paths.home}/ssh/known_hosts; a changed key is refused. execute_code needs python3 there.`,
    ].join('\n');
  }

  async postSetup(): Promise<void> {
    if (!findExecutable('ssh')) return;
    const { execa } = await import('execa');
    await execa('ssh', ['-V'], { reject: false });
  }

  async createEnvironment(options: CreateEnvironmentOptions): Promise<Environment> {
    return connect(this.options(options, this.target()));
  }

  private options(options: Pick<CreateEnvironmentOptions, 'timeout'> & { cwd?: unknown; childEnv?: unknown; logger?: unknown }, target: SshTarget): SshEnvironmentOptions {
    const { config, paths } = this.deps;
    const childEnv = typeof options.childEnv === 'function' ? (options.childEnv as () => Record<string, string>) : () => ({});
    return {
      target,
      hermesHome: paths.home,
      // The gateway's own cwd means nothing there: terminal.cwd, else the remote home.
      cwd: config.terminal.cwd ?? '',
      timeout: options.timeout,
      childEnv,
      maxOutputBytes: config.terminal.max_output_bytes,
      graceMs: config.code_execution.kill_grace * 1000,
      limits: limitsFromConfig(config),
      ssh: findExecutable('ssh') ?? 'ssh',
      logger: options.logger as Logger | undefined,
    };
  }
}

/** The SSH environment's code (and its transfer stack) loads only when a connection is made: not for every gateway or `hermes exec` start. */
async function connect(options: SshEnvironmentOptions): Promise<SshEnvironment> {
  const { SshEnvironment } = await import('./ssh-environment.js');
  return SshEnvironment.connect(options);
}
