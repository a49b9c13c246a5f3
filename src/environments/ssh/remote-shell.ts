import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import type { Environment, EnvironmentStream, ExecuteOptions, ExecuteResult, FileOptions, ReadFileOptions, StreamOptions, TransferOptions, UploadSource } from '../types.js';
import { downloadThroughShell, uploadThroughShell } from '../transfer/index.js';
import { commandResult } from '../run-group.js';
import { watchRun } from '../../shared/run-limits.js';
import { withoutStripped } from '../local.js';
import { OutputCapture } from '../../shared/output-capture.js';
import type { Logger } from '../../shared/logger.js';
import { BOOTSTRAP, bootstrapInput, killScript, remoteScript } from './remote-command.js';
import { remoteEnv } from '../remote-env.js';
import { openClientStream } from './remote-stream.js';
import { RemoteFiles } from './remote-files.js';
import { cpuSeconds, ulimitLines, type ResourceLimits } from '../limits.js';

/** How a local client process (ssh, docker) runs an argv on the backend. */
export interface ClientCommand {
  file: string;
  args: string[];
}

export interface RemoteShellOptions {
  /** The working folder on the backend. */
  cwd: string;
  /** Seconds; default timeout of `execute`. */
  timeout: number;
  /** The scrubbed variables of this host; the remote-worthy ones are sent (see remoteEnv). */
  childEnv: () => Record<string, string>;
  maxOutputBytes: number;
  /** Milliseconds between SIGTERM and SIGKILL of a remote group. */
  graceMs: number;
  /** terminal.limits, set with `ulimit` on the far side (SSH); none where the backend has its own (Docker's flags). */
  limits?: ResourceLimits;
  logger?: Logger;
}

/** What a raw run of the client returned. */
export interface ClientRun {
  output: string;
  exitCode: number;
  /** The client's stderr (ssh's own errors), kept apart for diagnosis. */
  stderr: string;
}

/**
 * An Environment whose commands run on another machine or in a container through a local
 * client program (`ssh`, `docker exec`). Every command is started by the fixed BOOTSTRAP
 * with its script on stdin, leads its own remote process group, and on a timeout or an
 * interrupt that remote group is terminated through a second client command; the local
 * client ends when the remote side closes the channel.
 */
export abstract class RemoteShellEnvironment implements Environment {
  abstract readonly cwd: string;
  /** Argvs this environment built for its client, newest last (tests check what command lines carry). */
  readonly commandLines: string[][] = [];

  /** The file tools' reads and writes (over a helper's stream); made on first use. */
  private files?: RemoteFiles;

  constructor(protected readonly remote: RemoteShellOptions) {}

  /** The local argv that runs `argv` on the backend with stdin attached. */
  protected abstract clientCommand(argv: string[]): ClientCommand;

  /** Names the backend in messages: `ssh backend (root@127.0.0.1:2222)`. */
  abstract describe(): string;

  resolvePath(path: string): string {
    return posix.isAbsolute(path) ? path : posix.resolve(this.cwd, path);
  }

  async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const timeout = options.timeout ?? this.remote.timeout;
    const id = randomBytes(8).toString('hex');
    // Under the supervisor, a command with no stdin of its own gets the client's stdin as its lifeline.
    const lifeline = options.stdin === undefined && options.leaveDetached !== true;
    const script = remoteScript({
      id,
      command,
      cwd: options.cwd ? this.resolvePath(options.cwd) : this.cwd,
      env: remoteEnv(this.remote.childEnv(), withoutStripped(options.env)),
      where: this.describe(),
      graceMs: this.remote.graceMs,
      supervise: options.leaveDetached !== true,
      limits: this.remote.limits ? ulimitLines(this.remote.limits, cpuSeconds(this.remote.limits, timeout)) : undefined,
      stdinLifeline: lifeline,
    });
    const run = await this.runBootstrap(id, bootstrapInput(script, options.stdin), timeout, options.signal, lifeline);
    return commandResult({ ...run, exitCode: run.exitCode }, timeout);
  }

  /** Reads a file as the backend's commands see it: over the file helper's stream, one round trip. */
  readFile(path: string, options: ReadFileOptions = {}): Promise<Buffer> {
    return this.remoteFiles().read(this.resolvePath(path), options);
  }

  /** Writes a file in place as `cat > file` there would, creating parent folders. */
  writeFile(path: string, data: Buffer | string, options: FileOptions = {}): Promise<void> {
    return this.remoteFiles().write(this.resolvePath(path), data, options);
  }

  /** Ends the file helper's stream (subclasses' cleanup). */
  protected async closeFiles(): Promise<void> {
    await this.files?.close();
  }

  private remoteFiles(): RemoteFiles {
    this.files ??= new RemoteFiles({
      openStream: (command) => this.openStream(command),
      download: (path, options) => this.download(path, options),
      execute: (command, options) => this.execute(command, options),
      where: this.describe(),
      logger: this.remote.logger,
    });
    return this.files;
  }

  /**
   * A long-lived command with its stdio attached, over one client process: one SSH session
   * on the shared connection, one `exec -i` (see openClientStream).
   */
  openStream(command: string, options: StreamOptions = {}): EnvironmentStream {
    const client = this.clientCommand(['bash', '--noprofile', '--norc', '-c', BOOTSTRAP]);
    this.commandLines.push([client.file, ...client.args]);
    return openClientStream(
      { client, control: (script, timeoutMs) => this.control(script, timeoutMs), where: this.describe(), graceMs: this.remote.graceMs, logger: this.remote.logger },
      {
        command,
        cwd: options.cwd ? this.resolvePath(options.cwd) : this.cwd,
        env: remoteEnv(this.remote.childEnv(), withoutStripped(options.env)),
        // No CPU time: a stream (a kernel, the file helper) lives across many commands.
        limits: this.remote.limits ? ulimitLines(this.remote.limits) : undefined,
        signal: options.signal,
      },
    );
  }

  /** Runs a short control command (no timeout handling beyond `timeoutMs`); stdout and stderr apart. */
  async control(script: string, timeoutMs = 30_000, stdin?: string): Promise<ClientRun> {
    const client = this.clientCommand(['bash', '--noprofile', '--norc', '-c', script]);
    this.commandLines.push([client.file, ...client.args]);
    const result = await execa(client.file, client.args, {
      reject: false,
      timeout: timeoutMs,
      ...(stdin !== undefined ? { input: stdin } : { stdin: 'ignore' as const }),
      stripFinalNewline: false,
    });
    return { output: String(result.stdout ?? ''), stderr: String(result.stderr ?? ''), exitCode: result.exitCode ?? 255 };
  }

  abstract cleanup(): Promise<void>;

  /** Moves a file in as a stream on the client's stdin (`cat` on the far side): no base64, no output cap. */
  upload(source: UploadSource, remotePath: string, options: TransferOptions = {}): Promise<void> {
    return uploadThroughShell((argv) => this.transferCommand(argv), source, this.resolvePath(remotePath), options, this.describe());
  }

  /** A stream of a file from the client's stdout (`cat` on the far side), with its `size`. */
  download(remotePath: string, options: TransferOptions = {}): Promise<Readable> {
    return downloadThroughShell((argv) => this.transferCommand(argv), this.resolvePath(remotePath), options, this.describe());
  }

  private transferCommand(argv: string[]): ClientCommand {
    const client = this.clientCommand(argv);
    this.commandLines.push([client.file, ...client.args]);
    return client;
  }

  /**
   * Runs the bootstrap with `input`; kills the remote group on timeout or abort. With
   * `holdStdin` the client's stdin stays open until it exits: the far supervisor's lifeline,
   * which only this process holds, so it closes when the gateway dies.
   */
  private async runBootstrap(
    id: string,
    input: Buffer,
    timeout: number,
    signal: AbortSignal | undefined,
    holdStdin = false,
  ): Promise<{ output: string; exitCode: number; timedOut: boolean; interrupted: boolean; reason?: string; truncated: boolean }> {
    const cap = this.remote.maxOutputBytes;
    const capture = new OutputCapture(Math.floor(cap * 0.4), Math.ceil(cap * 0.6));
    const client = this.clientCommand(['bash', '--noprofile', '--norc', '-c', BOOTSTRAP]);
    this.commandLines.push([client.file, ...client.args]);
    const child = execa(client.file, client.args, {
      ...(holdStdin ? { stdin: 'pipe' as const } : { input }),
      all: true,
      buffer: false,
      reject: false,
      stripFinalNewline: false,
    });
    if (holdStdin) {
      // A client that exits before reading it all: not an error of the command's.
      child.stdin?.on('error', () => undefined);
      child.stdin?.write(input);
      child.once('exit', () => child.stdin?.destroy());
    }
    child.all?.on('data', (chunk: Buffer) => capture.push(chunk));
    let stopping: Promise<void> | undefined;
    const watch = watchRun({ timeoutSeconds: timeout, signal }, () => {
      stopping ??= this.killRemote(id).finally(() => {
        // The channel closes once the remote group is gone; a dead link would keep the client.
        setTimeout(() => child.kill('SIGKILL'), 2000).unref();
      });
    });
    const result = await child;
    const { timedOut, interrupted, reason } = watch.done();
    await stopping;
    return {
      output: capture.text((omitted, total) => `\n... [OUTPUT TRUNCATED - ${omitted} bytes omitted out of ${total} total] ...\n`),
      exitCode: result.exitCode ?? 255,
      timedOut,
      interrupted,
      reason,
      truncated: capture.truncated,
    };
  }

  /** Terminates the remote group of command `id` (SIGTERM, grace, SIGKILL). */
  protected async killRemote(id: string): Promise<void> {
    const run = await this.control(killScript(id, this.remote.graceMs), this.remote.graceMs + 15_000);
    if (run.exitCode !== 0) {
      this.remote.logger?.warn({ id, stderr: run.stderr.trim() }, `could not kill the remote command on the ${this.describe()}`);
    }
  }
}

