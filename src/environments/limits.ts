import type { HermesConfig } from '../config/schema.js';

/**
 * The kernel-enforced limits of what a command may take, as `terminal.limits` sets them.
 * They are rlimits: per process (memory, file size, CPU time, open files) and per user
 * (processes) — see `prlimitArgs` for what that means on each backend.
 */
export interface ResourceLimits {
  /** Processes and threads at once (RLIMIT_NPROC). */
  processes: number;
  /** Bytes of private memory per process (RLIMIT_DATA). */
  memory: number;
  /** Bytes of the largest file a process may write (RLIMIT_FSIZE). */
  fileSize: number;
  /** CPU seconds per process; 0: the command's timeout. */
  cpuTime: number;
  /** Open file descriptors per process (RLIMIT_NOFILE). */
  openFiles: number;
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
const SIZE = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i;

/** Bytes of a size written `512m`, `2g`, `1GiB`, `1048576`; undefined when it is not one. */
export function parseByteSize(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
  const match = SIZE.exec(value);
  if (!match) return undefined;
  const bytes = Math.floor(Number(match[1]) * UNITS[match[2].toLowerCase()]);
  return bytes > 0 ? bytes : undefined;
}

/** `terminal.limits` as numbers (the schema has already checked the sizes). */
export function limitsFromConfig(config: HermesConfig): ResourceLimits {
  const limits = config.terminal.limits;
  return {
    processes: limits.processes,
    memory: parseByteSize(limits.memory) ?? 2 * 1024 ** 3,
    fileSize: parseByteSize(limits.file_size) ?? 1024 ** 3,
    cpuTime: limits.cpu_time,
    openFiles: limits.open_files,
  };
}

/** Seconds after the CPU-time soft limit (SIGXCPU, which a program may catch) at which the kernel sends SIGKILL. */
const CPU_HARD_GRACE = 5;

/** CPU seconds for a command whose timeout is `timeout` seconds: `cpu_time`, or the timeout when it is 0. */
export function cpuSeconds(limits: ResourceLimits, timeout: number | undefined): number | undefined {
  const seconds = limits.cpuTime > 0 ? limits.cpuTime : timeout;
  return seconds && seconds > 0 ? Math.ceil(seconds) : undefined;
}

/**
 * `prlimit` options that set each limit, soft and hard alike, so the program cannot raise
 * them again; core dumps off. `processes` is left out where RLIMIT_NPROC would count the
 * wrong thing: it counts every process of the real user id (in its user namespace), so only
 * a sandbox, whose processes are a user of their own, can use it; on `local` it would count
 * the gateway's user's every process, and root is exempt from it.
 */
export function prlimitArgs(limits: ResourceLimits, options: { cpuSeconds?: number; processes: boolean }): string[] {
  const args = [
    `--data=${limits.memory}:${limits.memory}`,
    `--fsize=${limits.fileSize}:${limits.fileSize}`,
    `--nofile=${limits.openFiles}:${limits.openFiles}`,
    '--core=0:0',
  ];
  if (options.processes) args.push(`--nproc=${limits.processes}:${limits.processes}`);
  if (options.cpuSeconds) args.push(`--cpu=${options.cpuSeconds}:${options.cpuSeconds + CPU_HARD_GRACE}`);
  return args;
}

/**
 * Docker's and podman's `--ulimit` flags for the limits a cgroup does not cover (file size, CPU
 * time, open files, core dumps). `nproc` is given too, at the cgroup's pids limit: with any
 * `--ulimit`, podman sets the rlimits it is not given to its defaults, which a host with lower
 * hard limits refuses (the container does not start).
 */
export function dockerUlimitArgs(limits: ResourceLimits, cpuSecondsCeiling: number | undefined, pidsLimit: number): string[] {
  return [
    '--ulimit', `fsize=${limits.fileSize}:${limits.fileSize}`,
    '--ulimit', `nofile=${limits.openFiles}:${limits.openFiles}`,
    '--ulimit', `nproc=${pidsLimit}:${pidsLimit}`,
    '--ulimit', 'core=0:0',
    ...(cpuSecondsCeiling ? ['--ulimit', `cpu=${cpuSecondsCeiling}:${cpuSecondsCeiling + CPU_HARD_GRACE}`] : []),
  ];
}

/**
 * bash `ulimit` lines for a far host (SSH), soft and hard alike: memory, file size, open
 * files, no core dumps, and CPU time when given. Processes are left out for the reason given
 * at `prlimitArgs` (RLIMIT_NPROC counts every process of the SSH user there). A line that
 * fails leaves the far host's own, lower, hard limit in force, so each is allowed to fail.
 */
export function ulimitLines(limits: ResourceLimits, cpuSeconds?: number): string[] {
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  return [
    `ulimit -d ${kib(limits.memory)} 2>/dev/null`,
    // bash counts -f in 1024-byte blocks (512 only in POSIX mode, which this shell is not in).
    `ulimit -f ${kib(limits.fileSize)} 2>/dev/null`,
    `ulimit -n ${limits.openFiles} 2>/dev/null`,
    'ulimit -c 0 2>/dev/null',
    // SIGXCPU at the soft limit, SIGKILL at the hard one, as prlimitArgs sets them.
    ...(cpuSeconds ? [`ulimit -H -t ${cpuSeconds + CPU_HARD_GRACE} 2>/dev/null`, `ulimit -S -t ${cpuSeconds} 2>/dev/null`] : []),
  ];
}
