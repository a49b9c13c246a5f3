import { execa } from 'execa';
import { HermesError } from '../../shared/errors.js';
import type { ExecuteOptions, ExecuteResult } from '../types.js';
import { RemoteShellEnvironment, type ClientCommand, type RemoteShellOptions } from '../ssh/remote-shell.js';
import {
  NO_SUCH_CONTAINER,
  execArgs,
  findArgs,
  inspectArgs,
  removeArgs,
  removeVolumeArgs,
  runArgs,
  startArgs,
  type ContainerSpec,
} from './docker-args.js';

/** The container engine refused or is not there. */
export class DockerError extends HermesError {
  override readonly name = 'DockerError';
  constructor(code: 'DOCKER_ENGINE' | 'DOCKER_RUN', message: string) {
    super(code, message);
  }
}

export interface DockerEnvironmentOptions extends Omit<RemoteShellOptions, 'cwd'> {
  /** `docker` or `podman` (a path or a name on PATH). */
  binary: string;
  spec: ContainerSpec;
  /** Reuse a container with our labels across restarts, and keep it on cleanup. */
  persistent: boolean;
}

/** Text prefixed to the output of a command that ran in a recreated container. */
export const RECREATED_NOTE = '[environment recreated: the container had disappeared, so a new one was started; files outside the workspace were lost]';

/**
 * Commands run with `exec` in one long-lived container per environment (`run -d --init`,
 * all capabilities dropped but a shell's few, no new privileges, pids/memory/cpu limits, no
 * network unless configured, a workspace volume). A container that disappeared is
 * recreated once, and that command's output says so.
 */
export class DockerEnvironment extends RemoteShellEnvironment {
  readonly cwd: string;
  container = '';

  private constructor(private readonly options: DockerEnvironmentOptions) {
    super({ ...options, cwd: options.spec.workdir });
    this.cwd = options.spec.workdir;
  }

  /**
   * Finds our container by its labels (persistent) or starts a new one.
   * @throws DockerError when the engine does not answer or refuses to run it.
   */
  static async create(options: DockerEnvironmentOptions): Promise<DockerEnvironment> {
    const environment = new DockerEnvironment(options);
    await environment.ensureContainer();
    return environment;
  }

  describe(): string {
    return `docker backend (container ${this.options.spec.name}, image ${this.options.spec.image})`;
  }

  protected clientCommand(argv: string[]): ClientCommand {
    return { file: this.options.binary, args: execArgs(this.container || this.options.spec.name, argv) };
  }

  override async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const result = await super.execute(command, options);
    if (result.exit_code === 0 || !NO_SUCH_CONTAINER.test(result.output) || (await this.running())) return result;
    this.remote.logger?.warn({ container: this.container }, 'the container disappeared; recreating it once');
    this.container = '';
    await this.ensureContainer();
    const again = await super.execute(command, options);
    return { ...again, output: `${RECREATED_NOTE}\n${again.output}` };
  }

  /** Removes the container and its workspace volume unless `persistent`. */
  async cleanup(): Promise<void> {
    await this.closeFiles();
    if (this.options.persistent || !this.container) return;
    await this.client(removeArgs(this.container));
    await this.client(removeVolumeArgs(this.options.spec.volume));
  }

  private async running(): Promise<boolean> {
    const inspect = await this.client(inspectArgs(this.container || this.options.spec.name));
    return inspect.exitCode === 0 && inspect.stdout.trim() === 'true';
  }

  private async ensureContainer(): Promise<void> {
    const { spec } = this.options;
    if (this.options.persistent) {
      const found = await this.client(findArgs(spec.gatewayId, spec.session));
      if (found.exitCode !== 0) throw this.engineError(found.stderr);
      const [id, state] = found.stdout.trim().split('\n')[0]?.split(' ') ?? [];
      if (id) {
        // docker prints `running`; podman 4 prints its status there (`Up 3 minutes ago`).
        if (!/^(running|up)$/i.test(state ?? '')) await this.client(startArgs(id));
        this.container = id;
        if (await this.running()) return;
        await this.client(removeArgs(id));
      }
    } else {
      // A leftover of an earlier run with the same name would block `run --name`.
      await this.client(removeArgs(spec.name));
    }
    const run = await this.client(runArgs(spec), 300_000);
    if (run.exitCode !== 0) {
      if (NO_SUCH_CONTAINER.test(run.stderr) || /Cannot connect|connection refused|daemon/i.test(run.stderr)) throw this.engineError(run.stderr);
      throw new DockerError('DOCKER_RUN', `${this.options.binary} could not start the ${spec.image} container: ${run.stderr.trim().split('\n').at(-1)}. Check terminal.docker.image and \`hermes doctor\`.`);
    }
    this.container = run.stdout.trim().slice(0, 12) || spec.name;
  }

  private engineError(stderr: string): DockerError {
    return new DockerError('DOCKER_ENGINE', `the container engine (${this.options.binary}) does not answer: ${stderr.trim().split('\n').at(-1) || 'no output'}. Start it, or check terminal.docker.binary; run \`hermes doctor\`.`);
  }

  private async client(args: string[], timeout = 60_000): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    this.commandLines.push([this.options.binary, ...args]);
    const result = await execa(this.options.binary, args, { reject: false, timeout, stdin: 'ignore' });
    return { exitCode: result.exitCode ?? 255, stdout: String(result.stdout ?? ''), stderr: String(result.stderr ?? '') };
  }
}
