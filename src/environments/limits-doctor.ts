import type { HermesConfig } from '../config/schema.js';
import type { DoctorCheck } from './provider.js';
import { limitsFromConfig, type ResourceLimits } from './limits.js';
import { findExecutable } from './which.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/** `2 GiB`, `512 MiB`, or bytes. */
export function describeBytes(bytes: number): string {
  if (bytes % GIB === 0) return `${bytes / GIB} GiB`;
  if (bytes % MIB === 0) return `${bytes / MIB} MiB`;
  return `${bytes} bytes`;
}

function rlimits(limits: ResourceLimits, processes: boolean): string {
  return [
    ...(processes ? [`${limits.processes} processes (RLIMIT_NPROC, counted per sandbox)`] : []),
    `${describeBytes(limits.memory)} private memory per process (RLIMIT_DATA)`,
    `${describeBytes(limits.fileSize)} per file (RLIMIT_FSIZE)`,
    `CPU ${limits.cpuTime > 0 ? `${limits.cpuTime} s` : "the command's timeout"} per process (RLIMIT_CPU)`,
    `${limits.openFiles} open files (RLIMIT_NOFILE)`,
  ].join(', ');
}

/** Cgroups are not used: the gateway has no delegated cgroup v2 to make per-command groups in. */
const NO_CGROUPS = 'not cgroups: the gateway does not make per-command cgroups (they need a delegated cgroup v2)';

/**
 * The doctor line that says which mechanism enforces `terminal.limits` on a backend, and what
 * it does not cover there.
 */
export function limitsCheck(backend: 'local' | 'sandbox' | 'docker' | 'ssh', config: HermesConfig): DoctorCheck {
  const limits = limitsFromConfig(config);
  const name = `${backend}: limits`;
  if (backend === 'docker') {
    const docker = config.terminal.docker;
    return {
      name, ok: true, required: false,
      detail: `the engine's cgroup: --memory ${docker.memory}, --pids-limit ${docker.pids_limit}, --cpus ${docker.cpus} (terminal.docker); its --ulimit: ${describeBytes(limits.fileSize)} per file, ${limits.openFiles} open files, CPU per process up to the longest timeout`,
    };
  }
  if (backend === 'ssh') {
    return { name, ok: true, required: false, detail: `bash ulimit on the far host before each command: ${rlimits(limits, false)}; processes not limited (RLIMIT_NPROC would count all of the SSH user's processes); a far host whose own hard limit is lower keeps it` };
  }
  const prlimit = process.platform === 'linux' ? findExecutable('prlimit') : undefined;
  if (!prlimit) {
    return backend === 'sandbox'
      ? { name, ok: false, detail: 'prlimit (util-linux) not found on PATH: the sandbox refuses to start without its limits', fix: 'install util-linux (apt-get install util-linux)' }
      : { name, ok: false, required: false, detail: `none: ${process.platform === 'linux' ? 'prlimit (util-linux) not found on PATH' : `rlimits are set with Linux's prlimit, and this is ${process.platform}`}`, fix: process.platform === 'linux' ? 'install util-linux' : undefined };
  }
  if (backend === 'sandbox') return { name, ok: true, required: false, detail: `rlimits through prlimit, ${NO_CGROUPS}: ${rlimits(limits, true)}` };
  return {
    name, ok: true, required: false,
    detail: `rlimits through prlimit, ${NO_CGROUPS}: ${rlimits(limits, false)}; processes not limited (RLIMIT_NPROC would count all of the user's processes, and root is exempt)`,
  };
}
