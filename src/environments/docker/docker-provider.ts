import { cpuSeconds, limitsFromConfig } from '../limits.js';
import { limitsCheck } from '../limits-doctor.js';
import type { HermesConfig } from '../../config/schema.js';
import type { HermesPaths } from '../../config/paths.js';
import type { DoctorCheck, ProbeResult, TerminalEnvironmentProvider } from '../provider.js';
import type { CreateEnvironmentOptions, Environment } from '../types.js';
import { findExecutable } from '../which.js';
import { sessionFolderName } from '../sandbox/sandbox-provider.js';
import { shortHash, type ContainerSpec } from './docker-args.js';
import type { DockerError } from './docker-environment.js';
import { ENGINE_CLIENTS, askEngine, answers, chooseEngine, describeAnswers, type EngineAnswer, type EngineChoice } from './engine.js';

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
  readonly sessionIsolatedWhenNonpersistent = true;

  constructor(private readonly deps: { config: HermesConfig; paths: HermesPaths }) {}

  get envDescription(): string {
    const docker = this.deps.config.terminal.docker;
    return `Commands run inside a ${docker.image} container (working folder ${WORKDIR}), ${docker.network ? 'with' : 'without'} network access; only ${WORKDIR} is kept on a volume.`;
  }

  /** The clients this backend may use, as found on PATH: the configured one, else docker and podman. */
  clients(): Array<{ client: string; path: string }> {
    const configured = this.deps.config.terminal.docker.binary;
    return (configured ? [configured] : ENGINE_CLIENTS).flatMap((client) => {
      const path = findExecutable(client);
      return path ? [{ client, path }] : [];
    });
  }

  /** Which engine answers (terminal.docker.binary wins); asked with a short timeout and cached. */
  engine(): Promise<EngineChoice> {
    return chooseEngine(this.deps.config.terminal.docker.binary);
  }

  /** Checks for a client binary only; starts nothing and asks no engine. */
  isAvailable(): boolean {
    return this.clients().length > 0;
  }

  probe(): ProbeResult {
    const configured = this.deps.config.terminal.docker.binary;
    const found = this.clients();
    return found.length > 0
      ? { ok: true, detail: `${found.map(({ client, path }) => `${client} client at ${path}`).join(', ')}; image ${this.deps.config.terminal.docker.image} (hermes doctor asks which engine answers)` }
      : { ok: false, detail: configured ? `${configured} (terminal.docker.binary) is not on PATH` : 'neither docker nor podman is on PATH (terminal.docker.binary)' };
  }

  /** Which engine answered, and how to pick another one that is installed. */
  async doctorChecks(): Promise<DoctorCheck[]> {
    const configured = this.deps.config.terminal.docker.binary;
    const choice = await this.engine();
    // The clients the choice did not ask (podman once docker answered; both when one is pinned).
    const askedPaths = new Set(choice.asked.map((answer) => answer.path));
    const rest = ENGINE_CLIENTS.filter((client) => !choice.asked.some((answer) => answer.client === client) && !askedPaths.has(findExecutable(client)));
    const others = await Promise.all(rest.map(askEngine));
    // With no engine chosen the first line already says what every asked client answered.
    const notUsed = [...(choice.use ? choice.asked.filter((answer) => answer !== choice.use) : []), ...others].filter((answer) => answer.path !== undefined);
    return [engineCheck(choice, configured, notUsed), ...notUsed.map((answer) => otherEngineCheck(answer, choice, configured)), limitsCheck('docker', this.deps.config)];
  }

  setupInstructions(): string {
    const docker = this.deps.config.terminal.docker;
    return [
      `The docker backend runs commands in a long-lived ${docker.image} container with docker or podman`,
      `(terminal.docker.binary). Only ${WORKDIR} (a volume) survives the container; the network is ${docker.network ? 'on' : 'off'}`,
      '(terminal.docker.network). execute_code needs python3 in the image.',
      this.isAvailable() ? `${this.clients().map(({ path }) => path).join(' and ')} installed; hermes doctor says which engine answers.` : 'Install Podman (or Docker) first.',
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
      limits: limitsFromConfig(config),
      cpuSeconds: cpuSeconds(limitsFromConfig(config), Math.max(config.terminal.max_timeout, config.code_execution.timeout)),
      volume: `hermes-ws-${id}`,
      workdir: WORKDIR,
    };
  }

  async createEnvironment(options: CreateEnvironmentOptions): Promise<Environment> {
    const { config } = this.deps;
    const childEnv = typeof options.childEnv === 'function' ? (options.childEnv as () => Record<string, string>) : () => ({});
    const engine = await this.engine();
    if (!engine.use) throw await noEngineError(engine, config.terminal.docker.binary);
    // The container environment's code (and the remote-shell stack) loads only when a container is made.
    const { DockerEnvironment } = await import('./docker-environment.js');
    return DockerEnvironment.create({
      binary: engine.use.path,
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

const PICK = 'hermes config set terminal.docker.binary';

async function noEngineError(choice: EngineChoice, configured: string): Promise<DockerError> {
  const { DockerError } = await import('./docker-environment.js');
  const what = configured ? `the container engine of terminal.docker.binary (${configured}) does not answer` : 'no container engine answers';
  return new DockerError('DOCKER_ENGINE', `${what}: ${describeAnswers(choice.asked)}. Start one (or install podman), or set terminal.docker.binary; run \`hermes doctor\`.`);
}

/** The required line: which engine the backend uses, or why none. */
function engineCheck(choice: EngineChoice, configured: string, notUsed: EngineAnswer[]): DoctorCheck {
  if (choice.use) {
    const why = choice.configured ? 'set by terminal.docker.binary' : `the first of ${ENGINE_CLIENTS.join(', ')} that answers`;
    return { name: 'docker: engine', ok: true, detail: `${choice.use.client} at ${choice.use.path} answers (engine ${choice.use.version}), ${why}` };
  }
  const answering = notUsed.find(answers);
  const detail = choice.asked.every((answer) => answer.path === undefined)
    ? `${configured || ENGINE_CLIENTS.join(' or ')} is not on PATH`
    : `${configured ? `terminal.docker.binary (${configured}) does not answer` : 'no container engine answers'}: ${describeAnswers(choice.asked)}`;
  const fix = answering
    ? `${answering.client} answers: ${PICK} ${answering.client}`
    : 'start the engine (systemctl start docker), or install podman (apt-get install podman), and make sure this user may use it';
  return { name: 'docker: engine', ok: false, detail, fix };
}

/** An informational line per other installed client: whether it answers, and how to pick it. */
function otherEngineCheck(answer: EngineAnswer, choice: EngineChoice, configured: string): DoctorCheck {
  const name = `docker: other engine ${answer.client}`;
  if (answers(answer)) {
    return { name, ok: true, required: false, detail: `${answer.path} answers too (engine ${answer.version}); to use it: ${PICK} ${answer.client}` };
  }
  // Unpinned, a client earlier in the order is chosen by itself once its engine answers.
  const comesFirst = !configured && choice.use !== undefined && ENGINE_CLIENTS.indexOf(answer.client) < ENGINE_CLIENTS.indexOf(choice.use.client);
  return {
    name, ok: false, required: false,
    detail: `${answer.path} does not answer: ${answer.error}`,
    fix: comesFirst && choice.use
      ? `once its engine answers it is chosen before ${choice.use.client}; to keep ${choice.use.client}: ${PICK} ${choice.use.client}`
      : `start its engine, then ${PICK} ${answer.client}`,
  };
}
