import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Socket } from 'node:net';
import type { HostCommand } from '../../environments/types.js';
import { terminateGroup } from '../../environments/process-group.js';
import { findExecutable } from '../../environments/which.js';
import { descendants, newDescendants, supervisedArgv, supervisorPython, sweepThrough } from '../../environments/supervisor.js';
import { errorMessage } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { KernelStartError } from './errors.js';
import type { FrameTransport } from './frame-transport.js';
import { StartFailure, type KernelWiring } from './kernel-wiring.js';
import { settleWithin } from './settle-within.js';
import { DescendantWatch } from './descendant-watch.js';
import type { KernelExit, KernelStartOptions } from './types.js';

/** After the group is killed, how long output may still drain (a process outside the group may hold the pipes). */
const DRAIN_MS = 1000;

/**
 * A kernel child on this host, reached over Unix socket pairs: fd 1 and 2 for the cells'
 * output, fd 3 the control socket, fd 4 the lifeline, fd 5 the supervisor's control socket
 * when it runs under hermes_supervisor.py (a child subreaper leading the group). Killing the
 * kernel kills its whole group; if this Node process dies, the supervisor sees its socket close
 * and kills the tree. After a cell the processes under the leader are compared with those there
 * at ready (their /proc children files); a new one is killed by the supervisor.
 */
export class SocketTransport implements FrameTransport {
  readonly pid: number;
  readonly exited: Promise<void>;
  readonly ended: Promise<string>;
  /** Settles once the kernel has exited and its group was killed; never rejects. */
  readonly exitInfo: Promise<KernelExit>;
  readonly #control: Socket;
  readonly #lifeline: Socket;
  readonly #supervisor: Socket | undefined;
  readonly #drained: Promise<unknown>;
  readonly #graceMs: number;
  readonly #logger: Logger;
  /** The processes under the group leader at ready (the kernel, a sandbox's bwrap and init): they stay. */
  #baseline = new Set<number>();
  /** The cheap after-cell proof that the tree is as at ready; the full walk runs when it cannot prove it. */
  #watch: DescendantWatch | undefined;
  #exit: KernelExit | undefined;
  #stopping: Promise<void> | undefined;

  private constructor(child: ChildProcess, wiring: KernelWiring, options: KernelStartOptions) {
    this.pid = child.pid!;
    this.#graceMs = options.graceMs ?? 5000;
    this.#logger = options.logger ?? silentLogger();
    const [, stdout, stderr, control, lifeline, supervisor] = child.stdio as unknown as readonly unknown[];
    if (!(stdout instanceof Socket) || !(stderr instanceof Socket) || !(control instanceof Socket) || !(lifeline instanceof Socket)) {
      throw new KernelStartError('The kernel was spawned without its pipes (stdio must be ignore, pipe, pipe, pipe, pipe).');
    }
    this.#control = control;
    this.#lifeline = lifeline;
    this.#supervisor = supervisor instanceof Socket ? supervisor : undefined;
    this.#supervisor?.on('error', (error) => this.#logger.debug({ pid: this.pid, err: error }, 'kernel supervisor socket error'));
    control.on('data', wiring.listeners.onControl);
    stdout.on('data', wiring.listeners.onStdout);
    stderr.on('data', wiring.listeners.onStderr);
    for (const socket of [control, lifeline]) socket.on('error', (error) => this.#logger.debug({ pid: this.pid, err: error }, 'kernel socket error'));
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        this.#logger.debug({ pid: this.pid, code, signal }, 'kernel exited');
        resolve();
      }),
    );
    this.#drained = Promise.all([stdout, stderr, control].map((stream) => new Promise((resolve) => stream.once('close', resolve))));
    // Members the runner left in its group (a `sleep 1000 &`) go with it, right away, while
    // the group id cannot have been reused; the reply and markers may still be in the pipes.
    const stopped = this.exited.then(() => this.close());
    this.exitInfo = stopped.then(() => ({ ...this.#exit! }));
    this.ended = stopped.then(() => settleWithin(this.#drained, DRAIN_MS)).then(() => this.#endDetail());
    // An idle kernel must not keep Node running; a running cell refs the control socket.
    child.unref();
    for (const stream of [stdout, stderr, control, lifeline, this.#supervisor]) unref(stream);
  }

  /**
   * Spawns `command` (normally `kernelArgv(python)`, possibly wrapped by a sandbox) as the
   * leader of a new process group, under the supervisor when there is a python for it, and
   * waits for the runner's hello through `wiring`.
   * @throws KernelStartError when it cannot be spawned, exits, or is not ready in time.
   */
  static async open(command: HostCommand, wiring: KernelWiring, options: KernelStartOptions = {}): Promise<SocketTransport> {
    // A program that is not there is spawned as is, so it fails the way a spawn fails (ENOENT).
    const found = findExecutable(command.file.includes('/') ? resolve(command.cwd, command.file) : command.file, command.env.PATH);
    const python = found ? supervisorPython(command.env.PATH) : undefined;
    const [file, ...args] = python ? supervisedArgv(python, 5, options.graceMs ?? 5000, command.file, command.args) : [command.file, ...command.args];
    const child = spawn(file, args, {
      cwd: command.cwd,
      env: command.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', ...(python ? (['pipe'] as const) : [])],
    });
    if (child.pid === undefined) {
      const error = await new Promise<unknown>((resolve) => child.once('error', resolve));
      throw new KernelStartError(`Cannot start the session kernel with ${command.file}: ${errorMessage(error)}. Check code_execution.python.`, {
        cause: error,
      });
    }
    child.on('error', () => {}); // reported through 'exit'
    const transport = new SocketTransport(child, wiring, options);
    try {
      await wiring.ready(options.startTimeoutMs ?? 10_000, transport.ended.then((detail) => `it ${detail}`));
    } catch (error) {
      await transport.close();
      const why = error instanceof StartFailure ? error.message + (error.stderr ? `; its stderr ends with: ${error.stderr}` : '') : errorMessage(error);
      throw new KernelStartError(
        `The session kernel (${[command.file, ...command.args].join(' ')}) did not start: ${why}. ` +
          'Check code_execution.python and that the interpreter is Python 3.8 or newer.',
      );
    }
    transport.#baseline = new Set(descendants(transport.pid));
    transport.#watch = new DescendantWatch(transport.pid, transport.#baseline);
    transport.#logger.debug({ pid: transport.pid }, 'kernel ready');
    return transport;
  }

  send(frame: Buffer): void {
    this.#control.write(frame);
  }

  ref(): void {
    this.#control.ref();
  }

  unref(): void {
    this.#control.unref();
  }

  sweep(): Promise<void> | undefined {
    const supervisor = this.#supervisor;
    if (!supervisor || this.#watch?.unchanged()) return undefined;
    if (newDescendants(this.pid, this.#baseline).length === 0) {
      // Nothing new, but the tree moved (a thread the cell left running): watch it as it is now.
      this.#watch?.close();
      this.#watch = new DescendantWatch(this.pid, this.#baseline);
      return undefined;
    }
    this.#logger.info({ pid: this.pid }, 'the cell left processes behind; the supervisor kills them');
    return sweepThrough(supervisor, this.#baseline, this.#graceMs + 2000).then((ok) => {
      if (ok) return;
      this.#logger.warn({ pid: this.pid }, 'the kernel supervisor did not answer; killing the kernel');
      void this.close();
    });
  }

  async terminate(): Promise<void> {
    await this.close();
    await settleWithin(this.#drained, DRAIN_MS);
  }

  /** SIGTERM to the whole group, SIGKILL after the grace; waits for the leader's exit. Idempotent. */
  close(): Promise<void> {
    this.#stopping ??= (async () => {
      await terminateGroup(this.pid, this.#graceMs);
      await settleWithin(this.exited, 2000);
      // The control socket closes by itself once the runner is gone (its reply may still be in it).
      this.#lifeline.destroy();
      this.#supervisor?.destroy();
      this.#watch?.close();
    })();
    return this.#stopping;
  }

  /** `killed by SIGKILL`, `exited with code 1`, `was stopped`. */
  #endDetail(): string {
    return this.#exit ? describeExit(this.#exit.code, this.#exit.signal) : 'was stopped';
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exited with code ${code}`;
}

function unref(stream: unknown): void {
  const handle = stream as { unref?: () => void };
  if (typeof handle.unref === 'function') handle.unref();
}
