import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { HermesError } from '../../shared/errors.js';
import { RemoteShellEnvironment, type ClientCommand, type RemoteShellOptions } from './remote-shell.js';
import { controlPath, destination, sshCommand, sshExitMaster, sshOptions, type SshTarget } from './ssh-args.js';

/** The build box could not be reached or used. */
export class SshError extends HermesError {
  override readonly name = 'SshError';
  constructor(code: 'SSH_CONNECT' | 'SSH_CONFIG', message: string) {
    super(code, message);
  }
}

export interface SshEnvironmentOptions extends Omit<RemoteShellOptions, 'cwd'> {
  target: SshTarget;
  hermesHome: string;
  /** Remote working folder; empty: the remote user's home. */
  cwd: string;
  /** The ssh executable. */
  ssh?: string;
}

/**
 * Commands run on a build box over the system OpenSSH client, through one shared master
 * connection (ControlMaster) when `persistent`. Each command leads its own remote process
 * group; timeouts and interrupts kill that group over the master connection.
 */
export class SshEnvironment extends RemoteShellEnvironment {
  cwd: string;
  readonly controlPath: string;
  private readonly base: string[];
  private readonly ssh: string;

  private constructor(private readonly options: SshEnvironmentOptions) {
    super({ ...options, cwd: options.cwd });
    this.cwd = options.cwd;
    this.ssh = options.ssh ?? 'ssh';
    this.controlPath = controlPath(options.target, `${process.pid}:${randomBytes(6).toString('hex')}`);
    this.base = sshOptions(options.target, { controlPath: this.controlPath, hermesHome: options.hermesHome });
  }

  /**
   * Connects (starting the master connection) and settles the working folder: the
   * configured one, or the remote home.
   * @throws SshError when the host is not set or cannot be reached.
   */
  static async connect(options: SshEnvironmentOptions): Promise<SshEnvironment> {
    if (!options.target.host) {
      throw new SshError('SSH_CONFIG', 'terminal.ssh.host is empty: set the build box to connect to (hermes config set terminal.ssh.host HOST)');
    }
    mkdirSync(join(options.hermesHome, 'ssh'), { recursive: true, mode: 0o700 });
    const environment = new SshEnvironment(options);
    const probe = await environment.control('printf "%s" "$HOME"; command -v bash >/dev/null || exit 3', (options.target.connectTimeout + 10) * 1000);
    if (probe.exitCode !== 0) {
      await environment.cleanup();
      const why = probe.exitCode === 3 ? 'bash was not found on its PATH' : probe.stderr.trim().split('\n').at(-1) || `ssh exited with code ${probe.exitCode}`;
      throw new SshError('SSH_CONNECT', `cannot use the ${environment.describe()}: ${why}. Check terminal.ssh (host, user, port, key) and run \`hermes doctor\`.`);
    }
    if (!environment.cwd) environment.cwd = probe.output || '/';
    return environment;
  }

  describe(): string {
    return `ssh backend (${destination(this.options.target)}:${this.options.target.port})`;
  }

  protected clientCommand(argv: string[]): ClientCommand {
    return { file: this.ssh, args: sshCommand(this.options.target, this.base, argv) };
  }

  /** The ssh argv (without the executable) that runs `argv` remotely: for tests and the bench. */
  sshArgs(argv: string[]): string[] {
    return this.clientCommand(argv).args;
  }

  /**
   * Forwards a Unix socket of this host to a path on the build box over the master
   * connection (`ssh -O forward -R remote:local`). Returns the function that cancels it, or
   * undefined when there is no master connection or the server refused.
   */
  async forwardUnixSocket(remotePath: string, localPath: string): Promise<(() => Promise<void>) | undefined> {
    if (!this.options.target.persistent) return undefined;
    const spec = `${remotePath}:${localPath}`;
    const control = (op: string) => {
      const args = ['-o', `ControlPath=${this.controlPath}`, '-p', String(this.options.target.port), '-O', op, '-R', spec, destination(this.options.target)];
      this.commandLines.push([this.ssh, ...args]);
      return execa(this.ssh, args, { reject: false, timeout: 10_000, stdin: 'ignore' });
    };
    const forwarded = await control('forward');
    if (forwarded.exitCode !== 0) {
      this.options.logger?.debug({ stderr: String(forwarded.stderr) }, 'ssh refused to forward the RPC socket; using the file transport');
      return undefined;
    }
    return async () => {
      await control('cancel');
    };
  }

  /** Closes the master connection and removes its socket. */
  async cleanup(): Promise<void> {
    await this.closeFiles();
    if (!this.options.target.persistent) return;
    await execa(this.ssh, sshExitMaster(this.options.target, this.controlPath), { reject: false, timeout: 10_000, stdin: 'ignore' });
    await rm(this.controlPath, { force: true });
  }
}
