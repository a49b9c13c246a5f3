import { createHash } from 'node:crypto';
import { dockerUlimitArgs, type ResourceLimits } from '../limits.js';

/** The one container of an environment, as `docker run` should create it. */
export interface ContainerSpec {
  image: string;
  /** Container name (`hermes-<hash>`). */
  name: string;
  /** Identifies this gateway (a hash of HERMES_HOME), so reuse never takes another gateway's container. */
  gatewayId: string;
  /** The session (task id) the container serves. */
  session: string;
  network: boolean;
  memory: string;
  cpus: number;
  pidsLimit: number;
  /** `terminal.limits` the cgroup does not cover, as `--ulimit` flags (file size, open files, CPU time). */
  limits?: ResourceLimits;
  /** CPU seconds per process: one container serves every command, so the longest timeout any may have. */
  cpuSeconds?: number;
  /** Named volume mounted at `workdir`. */
  volume: string;
  workdir: string;
}

/** Labels every container of ours carries. */
export const LABEL_GATEWAY = 'hermes.gateway';
export const LABEL_SESSION = 'hermes.session';

/** What a shell needs after `--cap-drop ALL`: file ownership, users, signals. */
export const SHELL_CAPS = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID', 'KILL'] as const;

/** A short stable id from parts (container and volume names, the gateway id). */
export function shortHash(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 12);
}

/** `run -d --init ...`: a long-lived container that idles until commands are exec'd into it. */
export function runArgs(spec: ContainerSpec): string[] {
  return [
    'run', '-d', '--init',
    '--name', spec.name,
    '--label', `${LABEL_GATEWAY}=${spec.gatewayId}`,
    '--label', `${LABEL_SESSION}=${spec.session}`,
    '--cap-drop', 'ALL',
    ...SHELL_CAPS.flatMap((cap) => ['--cap-add', cap]),
    '--security-opt', 'no-new-privileges',
    '--pids-limit', String(spec.pidsLimit),
    '--memory', spec.memory,
    '--cpus', String(spec.cpus),
    ...(spec.limits ? dockerUlimitArgs(spec.limits, spec.cpuSeconds, spec.pidsLimit) : []),
    ...(spec.network ? [] : ['--network', 'none']),
    '--mount', `type=volume,source=${spec.volume},target=${spec.workdir}`,
    '--workdir', spec.workdir,
    spec.image,
    'sleep', 'infinity',
  ];
}

/** `ps -a` filtered by our labels: `<id> <state>` per line. */
export function findArgs(gatewayId: string, session: string): string[] {
  return ['ps', '-a', '--filter', `label=${LABEL_GATEWAY}=${gatewayId}`, '--filter', `label=${LABEL_SESSION}=${session}`, '--format', '{{.ID}} {{.State}}'];
}

/** `exec -i <container> argv...`: stdin attached, no TTY. */
export function execArgs(container: string, argv: string[]): string[] {
  return ['exec', '-i', container, ...argv];
}

export function startArgs(container: string): string[] {
  return ['start', container];
}

/** Removes the container (and its anonymous volumes). */
export function removeArgs(container: string): string[] {
  return ['rm', '-f', '-v', container];
}

export function removeVolumeArgs(volume: string): string[] {
  return ['volume', 'rm', '-f', volume];
}

/** `inspect` of the container's running state: prints `true`/`false`, fails when it is gone. */
export function inspectArgs(container: string): string[] {
  return ['inspect', '--format', '{{.State.Running}}', container];
}

/** What the client prints when the container does not exist (docker and podman). */
export const NO_SUCH_CONTAINER = /no such container|no container with name or id/i;
