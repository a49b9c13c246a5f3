import { constants, statSync } from 'node:fs';
import { open, writeFile, mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type {
  Environment, EnvironmentKind, ExecuteOptions, ExecuteResult, FileOptions, HostCommand, HostCommandOptions, ReadFileOptions, SpillFolder,
} from './types.js';
import { commandResult, runInProcessGroup } from './run-group.js';
import { fileError } from './file-errors.js';
import { strippedEnvKeys } from './child-env.js';
import { cpuSeconds, prlimitArgs, type ResourceLimits } from './limits.js';

/** Per-command variables lose every provider's stripEnvKeys too. */
export function withoutStripped(env: Record<string, string> | undefined): Record<string, string> {
  const stripped = strippedEnvKeys();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) if (!stripped.has(name)) out[name] = value;
  return out;
}

export interface LocalEnvironmentOptions {
  cwd: string;
  /** Default timeout in seconds for `execute`. */
  timeout: number;
  /** The scrubbed variables children get; called per command so passthrough changes apply. */
  childEnv: () => Record<string, string>;
  maxOutputBytes?: number;
  graceMs?: number;
  /** Where a script's cut stdout is saved (HERMES_HOME/cache/exec). */
  spillDir?: string;
  /** Kernel-enforced limits (`terminal.limits`), set through `prlimit`; without `prlimit` nothing is set. */
  limits?: ResourceLimits;
  /** util-linux `prlimit`. */
  prlimit?: string;
  /** Seconds a script or kernel started through hostCommand may run (`code_execution.timeout`): its CPU-time limit when the caller gives none. */
  scriptTimeout?: number;
}

/** What a wrapped process gets besides its argv: the extra mounts (sandbox) and its CPU seconds. */
export interface WrapExtras {
  binds: string[];
  readOnly: string[];
  cpuSeconds?: number;
}

/** The reason commands still running get when the environment is cleaned up. */
export const CLEANUP_REASON = 'the terminal environment was closed';

/**
 * Commands run on this host with bash, each as the leader of its own process group, tied
 * to the gateway by the lifeline (see spawnGroupLeader). No isolation: a command reads
 * and writes what the gateway's user can.
 */
export class LocalEnvironment implements Environment {
  readonly kind: EnvironmentKind = 'host';
  /** Own property of a session's view (forSession) once that session's terminal moved it. */
  protected workingFolder: string;
  /** Commands still running, so cleanup() can end them. */
  private readonly running = new Set<AbortController>();

  constructor(protected readonly options: LocalEnvironmentOptions) {
    this.workingFolder = resolve(options.cwd);
  }

  get cwd(): string {
    return this.workingFolder;
  }

  /** Follows a terminal command's `cd` to an existing folder on this host (see Environment.followCwd). */
  followCwd(path: string): boolean {
    if (!isAbsolute(path) || path.includes('\0') || path === this.workingFolder) return false;
    try {
      if (!statSync(path).isDirectory()) return false;
    } catch {
      return false;
    }
    this.workingFolder = path;
    return true;
  }

  /**
   * A view for one session of this shared environment: the same commands, running set and
   * options, but its own working folder, so one session's `cd` does not move another's.
   */
  forSession(): Environment {
    return Object.create(this) as LocalEnvironment;
  }

  /** Where `~` points for the environment's commands. */
  protected get home(): string {
    return homedir();
  }

  resolvePath(path: string): string {
    if (path === '~' || path.startsWith('~/')) return join(this.home, path.slice(1));
    return isAbsolute(path) ? path : resolve(this.cwd, path);
  }

  async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const timeout = options.timeout ?? this.options.timeout;
    const spawn = this.wrap(['bash', '--noprofile', '--norc', '-c', command], options.cwd ? this.resolvePath(options.cwd) : this.cwd, {
      binds: [], readOnly: [], cpuSeconds: this.cpuLimit(timeout),
    });
    const stop = new AbortController();
    const onAbort = () => stop.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    this.running.add(stop);
    try {
      const run = await runInProcessGroup(spawn.file, spawn.args, {
        cwd: spawn.cwd,
        env: { ...this.options.childEnv(), ...this.commandEnv(options.env) },
        stdin: options.stdin,
        timeout,
        signal: stop.signal,
        maxOutputBytes: this.options.maxOutputBytes ?? 50_000,
        graceMs: this.options.graceMs,
      });
      return commandResult({ ...run, exitCode: run.exitCode ?? (run.signal ? 128 : 1) }, timeout);
    } finally {
      this.running.delete(stop);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  hostCommand(argv: string[], options: HostCommandOptions): HostCommand {
    const spawn = this.wrap(argv, options.cwd ?? this.cwd, {
      binds: options.binds ?? [], readOnly: options.readOnly ?? [], cpuSeconds: this.cpuLimit(options.cpuSeconds ?? this.options.scriptTimeout),
    });
    return { ...spawn, env: options.env ? this.commandEnv(options.env) : this.options.childEnv() };
  }

  /**
   * How an argv that should run in `cwd` (as the environment sees it) starts on this host.
   * Local runs it under `prlimit` (the limits but processes: RLIMIT_NPROC would count the
   * user's every process, and root is exempt); the sandbox wraps it in bubblewrap with the extra mounts.
   */
  protected wrap(argv: string[], cwd: string, extras: WrapExtras): { file: string; args: string[]; cwd: string } {
    const { limits, prlimit } = this.options;
    const [file, ...args] = limits && prlimit
      ? [prlimit, ...prlimitArgs(limits, { cpuSeconds: extras.cpuSeconds, processes: false }), '--', ...argv]
      : argv;
    return { file, args, cwd };
  }

  /** The CPU seconds of a command that may run `timeout` seconds (`terminal.limits.cpu_time`, or the timeout). */
  protected cpuLimit(timeout: number | undefined): number | undefined {
    return this.options.limits ? cpuSeconds(this.options.limits, timeout) : undefined;
  }

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Buffer> {
    const full = this.resolvePath(path);
    // One open, then fstat: the size checked is the size of the file read. O_NONBLOCK: a FIFO must not hang the open.
    const handle = await open(full, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw fileError('EISDIR', full);
      if (!info.isFile()) throw fileError('EIO', full, undefined, 'not a regular file: a FIFO, device or socket');
      if (options.maxBytes !== undefined && info.size > options.maxBytes) throw fileError('EFBIG', full, info.size);
      return await handle.readFile({ signal: options.signal });
    } finally {
      await handle.close();
    }
  }

  async writeFile(path: string, data: Buffer | string, options: FileOptions = {}): Promise<void> {
    const full = this.resolvePath(path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, data, { signal: options.signal });
  }

  spillFolder(): SpillFolder | undefined {
    const dir = this.options.spillDir;
    return dir ? { host: dir, visible: dir } : undefined;
  }

  /** Ends every command still running (gateway shutdown, session end). */
  async cleanup(): Promise<void> {
    for (const stop of this.running) stop.abort(CLEANUP_REASON);
  }

  private commandEnv(env: Record<string, string> | undefined): Record<string, string> {
    return withoutStripped(env);
  }
}
