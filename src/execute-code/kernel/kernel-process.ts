import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Socket } from 'node:net';
import type { HostCommand } from '../../environments/types.js';
import { terminateGroup } from '../../environments/process-group.js';
import { findExecutable } from '../../environments/which.js';
import { descendants, newDescendants, supervisedArgv, supervisorPython, sweepThrough } from '../../environments/supervisor.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { errorMessage } from '../../shared/errors.js';
import { EXIT_WAIT_MS, acceptsReply, armCell, cellSource, closeCell, finishWhenReady, openCell, type ActiveCell } from './active-cell.js';
import { KernelBusyError, KernelStartError } from './errors.js';
import { FrameReader, MAX_INBOUND_FRAME, type Frame } from './frames.js';
import { MarkerSplitter } from './marker-splitter.js';
import { settleWithin } from './settle-within.js';
import type { CellOutcome, KernelExit, KernelStartOptions, RunCellOptions } from './types.js';

const PROTOCOL_VERSION = '1';
const STDERR_KEEP = 4096;
/** After the group is killed, how long output may still drain (a process outside the group may hold the pipes). */
const DRAIN_MS = 1000;

/**
 * One resident Python kernel (kernel_runner.py): a child that leads its own process group
 * and runs cells in one persistent namespace. Cells run one at a time. A cell's output is
 * delivered through the callbacks up to its end marker; its outcome comes over a separate
 * control socket. The kernel runs under the supervisor (hermes_supervisor.py, a child
 * subreaper leading the group): after each cell that ends normally the processes under it are
 * compared with those there at ready (a read of their /proc children files), and any new one
 * — a `setsid`, a double fork, a `Popen(..., start_new_session=True)` — is killed by the
 * supervisor before the cell's outcome is given. Killing the kernel kills its whole tree; if
 * this Node process dies, the supervisor sees its control socket close and kills the tree.
 */
export class KernelProcess {
  /** The kernel's pid, also its process group id (it is spawned detached). */
  readonly pid: number;
  readonly #control: Socket;
  readonly #lifeline: Socket;
  /** The supervisor's control socket (fd 5), when the kernel runs under one. */
  readonly #supervisor: Socket | undefined;
  /** The processes under the group leader at ready (the kernel, a sandbox's bwrap and init): they stay. */
  #baseline = new Set<number>();
  readonly #stdout = new MarkerSplitter();
  readonly #stderr = new MarkerSplitter();
  readonly #graceMs: number;
  readonly #logger: Logger;
  readonly #exited: Promise<void>;
  /**
   * Settles once the kernel process has exited and its group was killed, however it
   * ended (a cell's outcome, `kill()`, death while idle). Never rejects.
   */
  readonly exited: Promise<KernelExit>;
  readonly #drained: Promise<unknown>;
  #alive = false;
  #executionCount = 0;
  #cell: ActiveCell | undefined;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #stopping: Promise<void> | undefined;
  #starting: { resolve(): void; reject(why: string): void } | undefined;
  #startStderr = '';

  private constructor(child: ChildProcess, options: KernelStartOptions) {
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
    const frames = new FrameReader(MAX_INBOUND_FRAME, (frame) => this.#onFrame(frame), (why) => this.#protocolError(why));
    control.on('data', (chunk: Buffer) => frames.push(chunk));
    stdout.on('data', (chunk: Buffer) => this.#onOutput(this.#stdout, chunk));
    stderr.on('data', (chunk: Buffer) => {
      if (this.#starting) this.#startStderr = (this.#startStderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
      this.#onOutput(this.#stderr, chunk);
    });
    for (const socket of [control, lifeline]) socket.on('error', (error) => this.#logger.debug({ pid: this.pid, err: error }, 'kernel socket error'));
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.exited = this.#exited.then(() => this.#stop()).then(() => ({ ...this.#exit! }));
    this.#drained = Promise.all([stdout, stderr, control].map((stream) => new Promise((resolve) => stream.once('close', resolve))));
    child.on('exit', (code, signal) => this.#onExit(code, signal));
    // An idle kernel must not keep Node running; a running cell refs the control socket.
    child.unref();
    for (const stream of [stdout, stderr, control, lifeline, this.#supervisor]) unref(stream);
  }

  /**
   * Spawns `command` (normally `kernelArgv(python)`, possibly wrapped by a sandbox) as the
   * leader of a new process group and waits until the runner reports ready.
   * @throws KernelStartError when it cannot be spawned, exits, or is not ready in time.
   */
  static async start(command: HostCommand, options: KernelStartOptions = {}): Promise<KernelProcess> {
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
    const kernel = new KernelProcess(child, options);
    await kernel.#waitReady(command, options.startTimeoutMs ?? 10_000);
    return kernel;
  }

  /** Cells sent to this kernel so far. */
  get executionCount(): number {
    return this.#executionCount;
  }

  /** True from ready until the kernel ends, is killed, or a cell ends it (every outcome but ok/exception). */
  #endedByExit = false;

  /** A cell called sys.exit(): the kernel ended on purpose. */
  get endedByExit(): boolean {
    return this.#endedByExit;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /**
   * Runs one cell. Resolves once every byte the cell wrote to fds 1 and 2 was delivered;
   * callbacks are not called after that. Never rejects for what the cell does.
   * @throws (rejects) KernelBusyError when a cell is already running; KernelCellTooLargeError.
   */
  async runCell(code: string, options: RunCellOptions): Promise<CellOutcome> {
    if (this.#cell) throw new KernelBusyError(this.pid);
    if (!this.#alive) return { kind: 'died', detail: `${this.#endDetail()} before the cell started` };
    const source = cellSource(code);
    return new Promise((resolve) => {
      const { cell, frame } = openCell(source, options, resolve, { stdout: this.#stdout, stderr: this.#stderr, logger: this.#logger });
      this.#cell = cell;
      if (!options.uncounted) this.#executionCount++;
      this.#control.ref();
      this.#control.write(frame);
      armCell(cell, (outcome) => void this.#endAbnormally(cell, outcome));
    });
  }

  /**
   * SIGTERM to the whole group, SIGKILL after the grace; resolves when the kernel has
   * exited. A running cell ends as `interrupted` with `reason`. Idempotent.
   */
  async kill(reason = 'the session kernel was shut down'): Promise<void> {
    const cell = this.#cell;
    if (cell && !cell.settled) await this.#endAbnormally(cell, { kind: 'interrupted', reason });
    await this.#stop();
  }

  #waitReady(command: HostCommand, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(`it did not report ready within ${timeoutMs} ms`), timeoutMs);
      const fail = (why: string) => {
        clearTimeout(timer);
        this.#starting = undefined;
        const stderr = this.#startStderr.trim();
        void this.#stop().then(() =>
          reject(
            new KernelStartError(
              `The session kernel (${[command.file, ...command.args].join(' ')}) did not start: ${why}` +
                (stderr ? `; its stderr ends with: ${stderr}` : '') +
                '. Check code_execution.python and that the interpreter is Python 3.8 or newer.',
            ),
          ),
        );
      };
      this.#starting = {
        resolve: () => {
          clearTimeout(timer);
          this.#starting = undefined;
          this.#alive = true;
          this.#baseline = new Set(descendants(this.pid));
          this.#logger.debug({ pid: this.pid }, 'kernel ready');
          resolve();
        },
        reject: fail,
      };
    });
  }

  #onOutput(splitter: MarkerSplitter, chunk: Buffer): void {
    splitter.push(chunk);
    if (splitter.done) this.#maybeFinish();
  }

  #onFrame(frame: Frame): void {
    if (this.#starting) {
      if (frame.kind === 'H' && frame.payload.toString('latin1') === PROTOCOL_VERSION) this.#starting.resolve();
      else this.#protocolError(`unexpected ${JSON.stringify(frame.kind)} frame at start (is kernel_runner.py of another version?)`);
      return;
    }
    const cell = this.#cell;
    if (!acceptsReply(cell, frame)) {
      this.#protocolError(`unexpected ${JSON.stringify(frame.kind)} frame`);
      return;
    }
    cell.reply = frame;
    if (frame.kind === 'X') {
      this.#alive = false;
      this.#endedByExit = true;
    }
    this.#maybeFinish();
  }

  /** Settles the cell once its reply and both markers are in. */
  #maybeFinish(): void {
    const cell = this.#cell;
    if (!cell) return;
    // After sys.exit() the runner is ending on its own; then nothing of its group may outlive it.
    const ended = () => settleWithin(this.#exited, EXIT_WAIT_MS).then(() => this.#stop());
    finishWhenReady(cell, { stdout: this.#stdout, stderr: this.#stderr }, (outcome) => this.#completeClean(cell, outcome), ended);
  }

  /**
   * Completes a cell that ended normally once nothing it started is left: a new process under
   * the supervisor is killed by it first (the kernel and what was there at ready stay).
   */
  #completeClean(cell: ActiveCell, outcome: CellOutcome): void {
    const supervisor = this.#supervisor;
    if (!supervisor || newDescendants(this.pid, this.#baseline).length === 0) return this.#complete(cell, outcome);
    cell.settled = true;
    this.#logger.info({ pid: this.pid }, 'the cell left processes behind; the supervisor kills them');
    void sweepThrough(supervisor, this.#baseline, this.#graceMs + 2000).then((ok) => {
      if (!ok) {
        this.#logger.warn({ pid: this.pid }, 'the kernel supervisor did not answer; killing the kernel');
        void this.#stop();
      }
      this.#complete(cell, outcome);
    });
  }

  /** Timeout, interrupt, death, protocol error: kill the group, drain what was written, settle. */
  async #endAbnormally(cell: ActiveCell, outcome: CellOutcome): Promise<void> {
    if (cell.settled) return;
    cell.settled = true;
    clearTimeout(cell.timer);
    this.#logger.info({ pid: this.pid, outcome: outcome.kind }, 'kernel cell ended abnormally; killing its process group');
    await this.#stop();
    await settleWithin(this.#drained, DRAIN_MS);
    this.#stdout.finish();
    this.#stderr.finish();
    this.#complete(cell, outcome);
  }

  #complete(cell: ActiveCell, outcome: CellOutcome): void {
    closeCell(cell, { stdout: this.#stdout, stderr: this.#stderr });
    if (this.#cell === cell) this.#cell = undefined;
    this.#control.unref();
    cell.resolve(outcome);
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exit = { code, signal };
    this.#alive = false;
    this.#logger.debug({ pid: this.pid, code, signal }, 'kernel exited');
    if (this.#starting) this.#starting.reject(`it ${describeExit(code, signal)}`);
    // Members the runner left in its group (a `sleep 1000 &`) go with it, right away,
    // while the group id cannot have been reused.
    void this.#stop();
    const cell = this.#cell;
    if (cell && !cell.settled) {
      // The reply and markers may still be in the pipes: read them before calling it a death.
      void this.#stop()
        .then(() => settleWithin(this.#drained, DRAIN_MS))
        .then(() => {
          if (!cell.settled) void this.#endAbnormally(cell, { kind: 'died', detail: this.#endDetail() });
        });
    }
  }

  #protocolError(why: string): void {
    this.#logger.warn({ pid: this.pid, why }, 'kernel broke the control protocol; killing it');
    if (this.#starting) return this.#starting.reject(`it broke the control protocol: ${why}`);
    const cell = this.#cell;
    if (cell && !cell.settled) void this.#endAbnormally(cell, { kind: 'died', detail: `broke the control protocol (${why})` });
    else void this.#stop();
  }

  /** Kills the group (SIGTERM, grace, SIGKILL) and waits for the leader's exit. Idempotent. */
  #stop(): Promise<void> {
    this.#alive = false;
    this.#stopping ??= (async () => {
      await terminateGroup(this.pid, this.#graceMs);
      await settleWithin(this.#exited, 2000);
      // The control socket closes by itself once the runner is gone (its reply may still be in it).
      this.#lifeline.destroy();
      this.#supervisor?.destroy();
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
