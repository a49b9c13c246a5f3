import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Environment, ExecuteOptions, ExecuteResult, HostCommand } from './types.js';
import { commandResult, runInProcessGroup } from './run-group.js';
import { strippedEnvKeys } from './child-env.js';

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
}

/** Commands run on this host with bash, each as the leader of its own process group. */
export class LocalEnvironment implements Environment {
  readonly cwd: string;

  constructor(protected readonly options: LocalEnvironmentOptions) {
    this.cwd = resolve(options.cwd);
  }

  resolvePath(path: string): string {
    return isAbsolute(path) ? path : resolve(this.cwd, path);
  }

  async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const timeout = options.timeout ?? this.options.timeout;
    const spawn = this.wrap(['bash', '--noprofile', '--norc', '-c', command], options.cwd ? this.resolvePath(options.cwd) : this.cwd, []);
    const run = await runInProcessGroup(spawn.file, spawn.args, {
      cwd: spawn.cwd,
      env: { ...this.options.childEnv(), ...withoutStripped(options.env) },
      stdin: options.stdin,
      timeout,
      signal: options.signal,
      maxOutputBytes: this.options.maxOutputBytes ?? 50_000,
      graceMs: this.options.graceMs,
    });
    return commandResult({ ...run, exitCode: run.exitCode ?? (run.signal ? 128 : 1) }, timeout);
  }

  hostCommand(argv: string[], options: { cwd?: string; env: Record<string, string>; binds?: string[] }): HostCommand {
    const spawn = this.wrap(argv, options.cwd ?? this.cwd, options.binds ?? []);
    return { ...spawn, env: withoutStripped(options.env) };
  }

  /**
   * How an argv that should run in `cwd` (as the environment sees it) starts on this host.
   * Local runs it as is; the sandbox wraps it in bubblewrap with `binds` mounted.
   */
  protected wrap(argv: string[], cwd: string, _binds: string[]): { file: string; args: string[]; cwd: string } {
    const [file, ...args] = argv;
    return { file, args, cwd };
  }

  readFile(path: string): Promise<Buffer> {
    return readFile(this.resolvePath(path));
  }

  async writeFile(path: string, data: Buffer | string): Promise<void> {
    const full = this.resolvePath(path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, data);
  }

  async cleanup(): Promise<void> {}
}
