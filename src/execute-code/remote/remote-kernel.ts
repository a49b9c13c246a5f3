import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { remoteGroupKill } from '../../environments/remote-group-kill.js';
import type { Environment } from '../../environments/types.js';
import { abortReason } from '../../shared/notices.js';
import { packageRoot } from '../../shared/package-root.js';
import { errorMessage } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { KernelStartError } from '../kernel/errors.js';
import type { CellOutcome, Kernel, RunCellOptions } from '../kernel/types.js';
import { FileRpcPoller, type FileRpcHandler } from './file-rpc.js';
import { claimSweep } from './sweep.js';
import { createRemoteFolder, fileTransportStub, quote, readRemoteFile, removeRemoteFolder } from './remote-folder.js';

let runner: string | undefined;

export interface RemoteKernelStart {
  environment: Environment;
  stub: string;
  cwd: string;
  env: (dir: string) => Record<string, string>;
  /** Seconds without a cell after which the runner removes its folder and exits by itself. */
  idleSeconds: number;
  graceMs: number;
  maxOutputBytes: number;
  handler: FileRpcHandler;
  logger?: Logger;
}

/** A remote cell's options: a kernel over polled files fetches its output back within these caps. */
export interface RemoteCellOptions extends RunCellOptions {
  maxStdoutFetch: number;
  maxStderrBytes: number;
}

/**
 * A session kernel on a remote backend (remote_kernel_runner.py), reached only through the
 * environment's `execute`: cells and outcomes are files in its private folder, tool calls
 * go through the file transport, liveness is `kill -0` of its pid on every poll. Timeouts
 * and interrupts kill its whole process group there and remove the folder. Its runner speaks
 * files, not kernel_runner.py's frames, so it keeps the `Kernel` contract itself (a busy
 * kernel answers `busy`, as over every transport).
 */
export class RemoteKernel implements Kernel<RemoteCellOptions> {
  #alive = true;
  #count = 0;
  #sent = 0;
  /** A cell is between its write and its outcome. */
  #running = false;
  readonly #logger: Logger;

  private constructor(
    readonly pid: number,
    readonly dir: string,
    private readonly token: string,
    private readonly options: RemoteKernelStart,
  ) {
    this.#logger = options.logger ?? silentLogger();
  }

  /**
   * Creates the folder, starts the runner in the background and waits for it to be ready.
   * @throws KernelStartError when python3 is missing or the runner does not start.
   */
  static async start(options: RemoteKernelStart): Promise<RemoteKernel> {
    runner ??= readFileSync(join(packageRoot(), 'src/execute-code/python/remote_kernel_runner.py'), 'utf8');
    const token = randomBytes(24).toString('hex');
    let dir: string;
    try {
      dir = await createRemoteFolder(options.environment, { 'hermes_tools.py': fileTransportStub(options.stub), 'kernel.py': runner, token, 'kernel.log': '' }, 'hermes-rkernel', { sweep: claimSweep(options.environment) });
    } catch (error) {
      throw new KernelStartError(errorMessage(error), { cause: error });
    }
    const q = quote(dir);
    const started = await options.environment.execute(
      [
        `setsid python3 ${q}/kernel.py ${q} ${Math.max(1, Math.round(options.idleSeconds))} > ${q}/kernel.log 2>&1 < /dev/null &`,
        'p=$!',
        `i=0; while [ ! -s ${q}/ready ] && [ $i -lt 400 ]; do kill -0 "$p" 2>/dev/null || break; sleep 0.025; i=$((i+1)); done`,
        `if [ -s ${q}/ready ]; then echo "@@ready $(cat ${q}/ready)"; else echo '@@failed'; tail -c 2000 ${q}/kernel.log; kill -KILL -- -"$p" 2>/dev/null; fi`,
      ].join('\n'),
      { cwd: options.cwd, env: options.env(dir), timeout: 30, leaveDetached: true },
    );
    const pid = Number(/@@ready (\d+)/.exec(started.output)?.[1]);
    if (!pid) {
      await removeRemoteFolder(options.environment, dir).catch(() => false);
      const log = started.output.replace('@@failed', '').trim();
      throw new KernelStartError(`the remote kernel did not start${log ? `: ${log.split('\n').at(-1)}` : ''}`);
    }
    return new RemoteKernel(pid, dir, token, options);
  }

  #endedByExit = false;

  /** A cell called sys.exit(): the kernel ended on purpose. */
  get endedByExit(): boolean {
    return this.#endedByExit;
  }

  get alive(): boolean {
    return this.#alive;
  }

  get executionCount(): number {
    return this.#count;
  }

  /** Runs one cell; never rejects for what the cell does. */
  async runCell(code: string, options: RemoteCellOptions): Promise<CellOutcome> {
    if (this.#running) return { kind: 'busy' };
    if (!this.#alive) return { kind: 'died', detail: 'was stopped before the cell started' };
    this.#running = true;
    try {
      return await this.#run(code, options);
    } finally {
      this.#running = false;
    }
  }

  async #run(code: string, options: RemoteCellOptions): Promise<CellOutcome> {
    if (!options.uncounted) this.#count++;
    // Cell files are numbered by every cell sent, counted or not, so none is written twice.
    const number = ++this.#sent;
    const name = String(number).padStart(6, '0');
    const { environment } = this.options;
    const cells = `${this.dir}/cells`;
    const wrote = await environment.execute(
      `umask 077; cat > ${quote(`${cells}/.cell_${name}`)} && mv -f ${quote(`${cells}/.cell_${name}`)} ${quote(`${cells}/cell_${name}.py`)}`,
      { stdin: code, timeout: 60 },
    );
    if (wrote.exit_code !== 0) {
      await this.kill('the remote kernel could not receive the cell');
      return { kind: 'died', detail: `could not receive the cell (${wrote.output.trim() || wrote.exit_code})` };
    }
    const poller = new FileRpcPoller({
      environment,
      dir: this.dir,
      token: this.token,
      handler: this.options.handler,
      maxOutputBytes: this.options.maxOutputBytes,
      doneTest: `{ [ -e ../cells/done_${name} ] || ! kill -0 ${this.pid} 2>/dev/null; }`,
      logger: this.#logger,
    });
    let ended: CellOutcome | undefined;
    const stopWith = (outcome: CellOutcome) => {
      ended ??= outcome;
      void poller.stop();
    };
    const timer = options.timeoutMs > 0 ? setTimeout(() => stopWith({ kind: 'timeout' }), options.timeoutMs) : undefined;
    const onAbort = () => stopWith({ kind: 'interrupted', reason: abortReason(options.signal) });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    poller.start();
    await poller.finished();
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    if (ended) {
      await this.#fetchOutput(name, options);
      await this.kill(ended.kind);
      return ended;
    }
    const result = await environment.execute(`cat ${quote(`${cells}/done_${name}`)} 2>/dev/null || echo '@@none'`, { timeout: 60 });
    await this.#fetchOutput(name, options);
    if (result.output.includes('@@none')) {
      await this.kill('died');
      return { kind: 'died', detail: 'ended while running the cell' };
    }
    let outcome: { kind?: string; traceback?: string; code?: number | string | null };
    try {
      outcome = JSON.parse(result.output) as typeof outcome;
    } catch {
      await this.kill('protocol');
      return { kind: 'died', detail: 'broke the file protocol (unreadable outcome)' };
    }
    if (outcome.kind === 'ok') return { kind: 'ok' };
    if (outcome.kind === 'exception') return { kind: 'exception', traceback: outcome.traceback ?? '' };
    this.#endedByExit = true;
    await this.kill('exit');
    return { kind: 'exit', code: outcome.code ?? null };
  }

  /** Kills the runner's whole group on the backend and removes its folder. Idempotent. */
  async kill(_reason = 'the session kernel was shut down'): Promise<void> {
    if (!this.#alive) return;
    this.#alive = false;
    await this.options.environment
      .execute(`${remoteGroupKill(String(this.pid), this.options.graceMs)}; rm -rf -- ${quote(this.dir)}; exit 0`, { timeout: 60 })
      .catch((error: unknown) => this.#logger.warn({ err: errorMessage(error), pid: this.pid }, 'killing a remote kernel failed'));
  }

  async #fetchOutput(name: string, options: RemoteCellOptions): Promise<void> {
    const { environment, maxOutputBytes } = this.options;
    const cells = `${this.dir}/cells`;
    const sizes = await environment.execute(`wc -c < ${quote(`${cells}/out_${name}`)}; wc -c < ${quote(`${cells}/err_${name}`)}`, { timeout: 60 });
    const [outSize = 0, errSize = 0] = sizes.output.trim().split(/\s+/).map((n) => Number(n) || 0);
    const outWanted = Math.min(outSize, options.maxStdoutFetch);
    if (outWanted > 0) options.onStdout(await readRemoteFile(environment, `${cells}/out_${name}`, 0, outWanted, maxOutputBytes));
    const errWanted = Math.min(errSize, options.maxStderrBytes);
    if (errWanted > 0) options.onStderr(await readRemoteFile(environment, `${cells}/err_${name}`, errSize - errWanted, errWanted, maxOutputBytes));
    await environment.execute(`rm -f -- ${quote(`${cells}/out_${name}`)} ${quote(`${cells}/err_${name}`)}`, { timeout: 60 });
  }
}
