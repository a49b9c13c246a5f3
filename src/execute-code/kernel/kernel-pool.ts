import { KeyedQueue } from '../../shared/keyed-queue.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { KernelPoolClosedError, KernelStartError } from './errors.js';
import type { KernelProcess } from './kernel-process.js';
import type { KernelState, KernelUseInfo } from './types.js';

/** What the pool needs of a kernel: local (`KernelProcess`) and remote kernels both have it. */
export interface PooledKernel {
  readonly pid: number;
  readonly alive: boolean;
  /** True once a cell ended the kernel on purpose (sys.exit): that cell reported the end, so the next call is not a state reset. */
  readonly endedByExit?: boolean;
  kill(reason?: string): Promise<void>;
}

export interface KernelPoolOptions<K extends PooledKernel = KernelProcess> {
  /** Live unpinned kernels kept; beyond it the least recently used idle ones are evicted on acquire. */
  maxKernels: number;
  /** An unpinned kernel idle this long is killed (an unref'd timer). */
  idleTimeoutMs: number;
  logger?: Logger;
  /**
   * Starts a kernel for `owner`; the caller decides command, env and cwd. May throw (e.g.
   * KernelStartError). Optional when every `withKernel` call brings its own `start`.
   */
  start?(owner: string): Promise<K>;
}

export interface WithKernelOptions<K extends PooledKernel = KernelProcess> {
  /** Kill the owner's kernel first and run in a fresh one. */
  reset?: boolean;
  /** Starts the kernel if this call needs one; defaults to the pool's `start`. */
  start?(owner: string): Promise<K>;
}

const noStart = (owner: string): Promise<never> =>
  Promise.reject(new KernelStartError(`no way to start a kernel for ${owner}: pass start to the pool or to withKernel`));

/** Owners whose lost kernels are remembered for `stateReset`; the oldest are forgotten first. */
const MAX_REMEMBERED_LOSSES = 10_000;

interface Entry<K> {
  readonly owner: string;
  kernel: K | undefined;
  /** A withKernel call is starting a kernel for this owner. */
  starting: boolean;
  /** withKernel calls running or waiting for their turn. */
  users: number;
  pins: number;
  /** Pool tick of the last acquire or release, for least-recently-used eviction. */
  lastUsed: number;
  idleTimer: NodeJS.Timeout | undefined;
}

/**
 * Session kernels keyed by owner (a session id, or `<session>::child::<id>` for a
 * subagent). One cell at a time per owner, owners in parallel. A kernel that ended (timeout,
 * interrupt, `sys.exit()`, death) is dropped when its call returns, so the next call starts
 * a fresh one. Idle kernels are reaped after `idleTimeoutMs`; pinned kernels are neither
 * reaped nor evicted nor counted against `maxKernels`.
 */
export class KernelPool<K extends PooledKernel = KernelProcess> {
  readonly #options: KernelPoolOptions<K>;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry<K>>();
  /** One withKernel call at a time per owner, in the order they were made. */
  readonly #turns = new KeyedQueue();
  /** Owners whose kernel was lost since their last call (Map for insertion order). */
  readonly #lost = new Map<string, true>();
  readonly #kills = new Set<Promise<void>>();
  readonly #starts = new Set<Promise<void>>();
  #tick = 0;
  #closed = false;

  constructor(options: KernelPoolOptions<K>) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger();
  }

  /**
   * Runs `fn` with the owner's kernel, starting one if needed, after the owner's earlier
   * calls have finished. `reset` kills the existing kernel first. When a kernel is
   * acquired, idle unpinned kernels of other owners beyond `maxKernels` are evicted, least
   * recently used first; busy ones never are, so the cap can be exceeded while they run.
   * `options.start`, when given, starts the kernel instead of the pool's `start` (so a call
   * can start it with its own environment without racing other calls of the same owner).
   * @throws what `start` throws, what `fn` throws, KernelPoolClosedError after `closeAll()`.
   */
  async withKernel<T>(owner: string, options: WithKernelOptions<K>, fn: (kernel: K, info: KernelUseInfo) => Promise<T>): Promise<T> {
    if (this.#closed) throw new KernelPoolClosedError(owner);
    const entry = this.#entry(owner);
    entry.users++;
    clearTimeout(entry.idleTimer);
    return this.#turns.run(owner, async () => {
      try {
        if (this.#closed) throw new KernelPoolClosedError(owner);
        entry.lastUsed = ++this.#tick;
        let stateReset = this.#lost.delete(owner);
        if (entry.kernel && (!entry.kernel.alive || options.reset)) {
          stateReset = true;
          await this.#dropKernel(entry, 'the session kernel was reset');
        }
        const reused = entry.kernel !== undefined;
        if (reused) await this.#makeRoom();
        else await this.#startKernel(entry, options.start ?? this.#options.start ?? noStart);
        if (!entry.kernel) throw new KernelPoolClosedError(owner);
        return await fn(entry.kernel, { reused, stateReset });
      } finally {
        if (entry.kernel && !entry.kernel.alive) {
          // A sys.exit() cell reported the end itself (as hermes-agent does); the next cell is simply a fresh kernel.
          if (!entry.kernel.endedByExit) this.#remember(owner);
          void this.#dropKernel(entry, 'the session kernel ended');
        }
        entry.lastUsed = ++this.#tick;
        entry.users--;
        this.#scheduleReap(entry);
        this.#forgetIfEmpty(entry);
      }
    });
  }

  /** Starts the entry's kernel after making room; closeAll waits for starts in flight. */
  async #startKernel(entry: Entry<K>, start: (owner: string) => Promise<K>): Promise<void> {
    entry.starting = true;
    const attach = (async () => {
      try {
        await this.#makeRoom();
        entry.kernel = await start(entry.owner);
      } finally {
        entry.starting = false;
      }
      if (this.#closed) await this.#dropKernel(entry, 'the kernel pool was closed');
    })();
    this.#starts.add(attach);
    try {
      await attach;
    } finally {
      this.#starts.delete(attach);
    }
  }

  /**
   * Pins the owner's kernel (a subagent's, while it runs): it is not counted against
   * `maxKernels`, never evicted and never reaped. The returned unpin (idempotent) disposes
   * the kernel once the last pin is gone.
   */
  pin(owner: string): () => Promise<void> {
    const entry = this.#entry(owner);
    entry.pins++;
    clearTimeout(entry.idleTimer);
    let unpinned: Promise<void> | undefined;
    return () => {
      unpinned ??= (async () => {
        entry.pins--;
        if (entry.pins === 0) await this.dispose(owner);
      })();
      return unpinned;
    };
  }

  /**
   * Kills the owner's kernel now (`/new`, session close) and forgets the owner, so its next
   * call reports `stateReset: false`. A cell still running ends as `interrupted`.
   */
  async dispose(owner: string): Promise<void> {
    this.#lost.delete(owner);
    const entry = this.#entries.get(owner);
    if (!entry) return;
    await this.#dropKernel(entry, 'the session kernel was disposed');
    this.#forgetIfEmpty(entry);
  }

  /** `busy` while a call runs or waits for the owner's kernel, `idle` with a live kernel, else `none`. */
  state(owner: string): KernelState {
    const entry = this.#entries.get(owner);
    if (!entry) return 'none';
    if (entry.users > 0) return 'busy';
    return entry.kernel?.alive ? 'idle' : 'none';
  }

  /** Kills every kernel (running cells end as `interrupted`); later `withKernel` calls throw. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#starts]);
    await Promise.all([...this.#entries.values()].map((entry) => this.#dropKernel(entry, 'the kernel pool was closed')));
    await Promise.all([...this.#kills]);
  }

  #entry(owner: string): Entry<K> {
    let entry = this.#entries.get(owner);
    if (!entry) {
      entry = { owner, kernel: undefined, starting: false, users: 0, pins: 0, lastUsed: 0, idleTimer: undefined };
      this.#entries.set(owner, entry);
    }
    return entry;
  }

  /** Evicts idle unpinned kernels, least recently used first, while more than the cap live. */
  async #makeRoom(): Promise<void> {
    const counted = [...this.#entries.values()].filter((entry) => entry.pins === 0 && (entry.kernel || entry.starting));
    const excess = counted.length - this.#options.maxKernels;
    if (excess <= 0) return;
    const victims = counted
      .filter((entry) => entry.kernel && entry.users === 0)
      .sort((a, b) => a.lastUsed - b.lastUsed)
      .slice(0, excess);
    await Promise.all(
      victims.map((entry) => {
        this.#logger.info({ owner: entry.owner, pid: entry.kernel?.pid }, 'evicting idle session kernel (max_session_kernels)');
        this.#remember(entry.owner);
        return this.#dropKernel(entry, 'the session kernel was evicted').then(() => this.#forgetIfEmpty(entry));
      }),
    );
  }

  #scheduleReap(entry: Entry<K>): void {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    if (!entry.kernel || entry.pins > 0 || entry.users > 0 || this.#closed) return;
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = undefined;
      if (!entry.kernel || entry.pins > 0 || entry.users > 0) return;
      this.#logger.info({ owner: entry.owner, pid: entry.kernel.pid }, 'reaping idle session kernel');
      this.#remember(entry.owner);
      void this.#dropKernel(entry, 'the session kernel was idle too long').then(() => this.#forgetIfEmpty(entry));
    }, this.#options.idleTimeoutMs);
    entry.idleTimer.unref();
  }

  /** Detaches the entry's kernel at once and kills it; the promise settles when it is gone. */
  #dropKernel(entry: Entry<K>, reason: string): Promise<void> {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    const kernel = entry.kernel;
    if (!kernel) return Promise.resolve();
    entry.kernel = undefined;
    const killed = kernel.kill(reason).catch((error: unknown) => this.#logger.warn({ err: error, pid: kernel.pid }, 'killing a session kernel failed'));
    this.#kills.add(killed);
    void killed.then(() => this.#kills.delete(killed));
    return killed;
  }

  #remember(owner: string): void {
    this.#lost.delete(owner);
    this.#lost.set(owner, true);
    if (this.#lost.size > MAX_REMEMBERED_LOSSES) this.#lost.delete(this.#lost.keys().next().value!);
  }

  #forgetIfEmpty(entry: Entry<K>): void {
    if (!entry.kernel && !entry.starting && entry.users === 0 && entry.pins === 0 && this.#entries.get(entry.owner) === entry) {
      this.#entries.delete(entry.owner);
    }
  }
}
