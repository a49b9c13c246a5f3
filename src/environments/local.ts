import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Environment, ExecuteOptions, ExecuteResult, HostCommand } from './types.js';
import { interruptedNotice, runInProcessGroup } from './run-group.js';

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

  constructor(private readonly options: LocalEnvironmentOptions) {
    this.cwd = resolve(options.cwd);
  }

  resolvePath(path: string): string {
    return isAbsolute(path) ? path : resolve(this.cwd, path);
  }

  async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const timeout = options.timeout ?? this.options.timeout;
    const run = await runInProcessGroup('bash', ['--noprofile', '--norc', '-c', command], {
      cwd: options.cwd ? this.resolvePath(options.cwd) : this.cwd,
      env: { ...this.options.childEnv(), ...options.env },
      stdin: options.stdin,
      timeout,
      signal: options.signal,
      maxOutputBytes: this.options.maxOutputBytes ?? 50_000,
      graceMs: this.options.graceMs,
    });
    let output = run.output;
    let exitCode = run.exitCode ?? (run.signal ? 128 : 1);
    if (run.timedOut) {
      output += `${output && !output.endsWith('\n') ? '\n' : ''}[Command timed out after ${timeout}s and was killed]`;
      exitCode = 124;
    } else if (run.interrupted) {
      output += `${output && !output.endsWith('\n') ? '\n' : ''}${interruptedNotice(run.reason)}`;
      exitCode = 130;
    }
    return {
      output,
      exit_code: exitCode,
      ...(run.timedOut ? { timed_out: true } : {}),
      ...(run.interrupted ? { interrupted: true } : {}),
      ...(run.truncated ? { truncated: true } : {}),
    };
  }

  hostCommand(argv: string[], options: { cwd?: string; env: Record<string, string> }): HostCommand {
    const [file, ...args] = argv;
    return { file, args, env: options.env, cwd: options.cwd ?? this.cwd };
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
