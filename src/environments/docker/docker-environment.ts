import { execa, type ResultPromise } from 'execa';
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

/**
 * The container's lifeline, run with `exec -i` while the environment lives (`$1`: the
 * container's id): it remembers the container's main process (the lowest child of its init),
 * then waits on stdin. When the gateway goes — even by SIGKILL, its end of the pipe closes — or
 * the environment is cleaned up, it kills every process in the container but init, the main
 * process and itself: the commands, scripts and kernels of this gateway and whatever they left
 * (setsid, double forks), and removes the stream runners' folders, which nothing holds then. It kills nothing unless it runs where the hostname is the container's
 * id (what docker and podman give a container without --hostname), its main process is
 * `sleep infinity`: an `exec` that ran on a host instead (a fake or misconfigured engine) must
 * never take the host's processes.
 */
export const CONTAINER_LIFELINE = [
  'main=; for c in $(cat /proc/1/task/1/children); do if [ -z "$main" ] || [ "$c" -lt "$main" ]; then main=$c; fi; done',
  'while read -r _; do :; done',
  'case "$1" in ""|*[!0-9a-f]*) exit 0 ;; esac',
  'h=$(cat /proc/sys/kernel/hostname); case "$1" in "$h"*) ;; *) exit 0 ;; esac; [ ${#h} -ge 12 ] || exit 0',
  '[ "$(tr "\\0" " " < /proc/"$main"/cmdline)" = "sleep infinity " ] || exit 0',
  'for round in 1 2 3 4 5; do for p in /proc/[0-9]*; do p=${p#/proc/}; case "$p" in 1|"$$"|"$main") ;; *) kill -KILL "$p" 2>/dev/null ;; esac; done; done',
  // The stream runners went with the rest, some before removing their folders: nothing holds those now.
  'rm -rf "${TMPDIR:-/tmp}"/hermes-rexec-* "${TMPDIR:-/tmp}"/hermes-rkernel-*',
].join('\n');

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
  /** The running CONTAINER_LIFELINE exec, with its stdin held open. */
  private lifeline: ResultPromise<{ stdin: 'pipe'; stdout: 'ignore'; stderr: 'ignore'; reject: false }> | undefined;

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
    environment.holdLifeline();
    return environment;
  }

  describe(): string {
    return `docker backend (container ${this.options.spec.name}, image ${this.options.spec.image})`;
  }

  protected clientCommand(argv: string[]): ClientCommand {
    return { file: this.options.binary, args: execArgs(this.container || this.options.spec.name, argv) };
  }

  override async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    this.holdLifeline();
    const result = await super.execute(command, options);
    if (result.exit_code === 0 || !NO_SUCH_CONTAINER.test(result.output) || (await this.running())) return result;
    this.remote.logger?.warn({ container: this.container }, 'the container disappeared; recreating it once');
    this.container = '';
    await this.ensureContainer();
    this.holdLifeline();
    const again = await super.execute(command, options);
    return { ...again, output: `${RECREATED_NOTE}\n${again.output}` };
  }

  /** Ends what runs in the container (see CONTAINER_LIFELINE); removes the container and its workspace volume unless `persistent`. */
  async cleanup(): Promise<void> {
    await this.closeFiles();
    await this.releaseLifeline();
    if (this.options.persistent || !this.container) return;
    await this.client(removeArgs(this.container));
    await this.client(removeVolumeArgs(this.options.spec.volume));
  }

  /** Starts the container's lifeline unless it runs; it ends (killing what runs there) when its stdin closes. */
  private holdLifeline(): void {
    if (this.lifeline && this.lifeline.exitCode === null && !this.lifeline.killed) return;
    const args = execArgs(this.container || this.options.spec.name, ['sh', '-c', CONTAINER_LIFELINE, 'hermes-lifeline', this.container]);
    // Not execa's cleanup: a gateway that exits, however it exits, closes the pipe, and that is the signal.
    const child = execa(this.options.binary, args, { stdin: 'pipe', stdout: 'ignore', stderr: 'ignore', reject: false, cleanup: false });
    child.stdin.on('error', () => {});
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    void child.then(() => {
      if (this.lifeline === child) this.lifeline = undefined;
    });
    this.lifeline = child;
  }

  /** Closes the lifeline's stdin and waits (up to 10 s) for it to have killed what runs in the container. */
  private async releaseLifeline(): Promise<void> {
    const child = this.lifeline;
    if (!child) return;
    this.lifeline = undefined;
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await child;
    clearTimeout(timer);
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
