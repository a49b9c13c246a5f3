import { spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import type { HermesConfig } from '../../config/schema.js';
import type { HermesPaths } from '../../config/paths.js';
import type { DoctorCheck, ProbeResult, TerminalEnvironmentProvider } from '../provider.js';
import type { CreateEnvironmentOptions, Environment } from '../types.js';
import { findExecutable } from '../which.js';
import { sessionFolderName } from '../sandbox/sandbox-provider.js';
import { shortHash, type ContainerSpec } from './docker-args.js';
import { DockerEnvironment } from './docker-environment.js';

/** Where the workspace volume is mounted in the container. */
export const WORKDIR = '/workspace';

/** The `docker` backend: one long-lived container per environment (docker or podman). */
export class DockerProvider implements TerminalEnvironmentProvider {
  readonly name = 'docker';
  readonly displayName = 'Docker';
  readonly description = 'Run commands in a long-lived container (docker or podman): capabilities dropped, limits set, no network by default.';
  readonly isRemote = true;
  readonly isContainer = true;
  readonly skipContainerGuards = true;
  readonly cachePathBase = '/tmp/hermes-cache';
  readonly stripEnvKeys: readonly string[] = [];
  readonly sessionIsolatedWhenNonpersistent = true;

  constructor(private readonly deps: { config: HermesConfig; paths: HermesPaths }) {}

  get envDescription(): string {
    const docker = this.deps.config.terminal.docker;
    return `Commands run inside a ${docker.image} container (working folder ${WORKDIR}), ${docker.network ? 'with' : 'without'} network access; only ${WORKDIR} is kept on a volume.`;
  }

  /** terminal.docker.binary, else docker, else podman, found on PATH. */
  binary(): string | undefined {
    const configured = this.deps.config.terminal.docker.binary;
    if (configured) return findExecutable(configured);
    return findExecutable('docker') ?? findExecutable('podman');
  }

  /** Checks for the client binary only; starts nothing. */
  isAvailable(): boolean {
    return this.binary() !== undefined;
  }

  probe(): ProbeResult {
    const binary = this.binary();
    return binary
      ? { ok: true, detail: `${basename(binary)} client at ${binary}, image ${this.deps.config.terminal.docker.image}` }
      : { ok: false, detail: 'neither docker nor podman found on PATH (terminal.docker.binary)' };
  }

  doctorChecks(): DoctorCheck[] {
    const binary = this.binary();
    if (!binary) return [{ name: 'docker: client', ok: false, detail: 'docker/podman not found', fix: 'install Docker or Podman, or set terminal.docker.binary' }];
    const version = spawnSync(binary, ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 10_000 });
    const answered = version.status === 0 && version.stdout.trim() !== '';
    return [
      { name: 'docker: client', ok: true, detail: binary },
      answered
        ? { name: 'docker: engine', ok: true, detail: `engine ${version.stdout.trim()} answers` }
        : {
            name: 'docker: engine', ok: false,
            detail: (version.stderr || 'no answer').trim().split('\n').at(-1),
            fix: 'start the engine (systemctl start docker, or podman for rootless) and make sure this user may use it',
          },
    ];
  }

  setupInstructions(): string {
    const docker = this.deps.config.terminal.docker;
    return [
      `The docker backend runs commands in a long-lived ${docker.image} container with docker or podman`,
      `(terminal.docker.binary). Only ${WORKDIR} (a volume) survives the container; the network is ${docker.network ? 'on' : 'off'}`,
      '(terminal.docker.network). execute_code needs python3 in the image.',
      this.isAvailable() ? `${this.binary()} is installed.` : 'Install Docker or Podman first.',
    ].join('\n');
  }

  /** The container an environment for `taskId` uses. */
  spec(taskId: string): ContainerSpec {
    const { config, paths } = this.deps;
    const docker = config.terminal.docker;
    const gatewayId = shortHash(paths.home);
    const id = shortHash(gatewayId, taskId);
    return {
      image: docker.image,
      name: `hermes-${id}`,
      gatewayId,
      session: sessionFolderName(taskId),
      network: docker.network,
      memory: docker.memory,
      cpus: docker.cpus,
      pidsLimit: docker.pids_limit,
      volume: `hermes-ws-${id}`,
      workdir: WORKDIR,
    };
  }

  async createEnvironment(options: CreateEnvironmentOptions): Promise<Environment> {
    const { config } = this.deps;
    const childEnv = typeof options.childEnv === 'function' ? (options.childEnv as () => Record<string, string>) : () => ({});
    return DockerEnvironment.create({
      binary: this.binary() ?? 'docker',
      spec: this.spec(options.taskId),
      persistent: config.terminal.container_persistent,
      timeout: options.timeout,
      childEnv,
      maxOutputBytes: config.terminal.max_output_bytes,
      graceMs: config.code_execution.kill_grace * 1000,
      logger: options.logger,
    });
  }
}
