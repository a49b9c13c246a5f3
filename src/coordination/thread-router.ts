import type { InboundMessage, PassedAttachment } from '../gateway/index.js';
import { readPassedInbound } from '../gateway/inbound-message.js';
import { passableAttachments } from '../gateway/passed-attachments.js';
import { errorMessage } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import type { ThreadCoordination } from './coordination.js';
import type { RedisCoordinator } from './coordinator.js';
import type { LeaseKeeper } from './lease-keeper.js';
import type { ThreadLease } from './types.js';

/** What the router needs of the gateway it routes for. */
export interface RoutedGateway {
  dispatch(message: InboundMessage): Promise<void>;
  /** A message another instance passed, with its files as that instance described them (untrusted). */
  dispatchPassed(message: InboundMessage, attachments: unknown): Promise<void>;
  threadState(threadKey: string): { running: boolean; queued: number };
}

/** Tries to place one message before giving up (the lease changing hands between two looks). */
const ATTEMPTS = 5;

/**
 * The gateway's side of several instances: a thread's messages run where its lease is held.
 * `claim` takes the lease for this instance (kept while the thread's lane has work), or
 * passes the message to the instance holding it, where it interrupts or queues like any
 * message in that thread. Messages passed here are dispatched again, so they are claimed
 * here or passed on if the thread moved meanwhile.
 */
export class ThreadRouter implements ThreadCoordination {
  private readonly held = new Map<string, LeaseKeeper>();
  /**
   * Releases on their way to Redis, by thread. A claim here waits for its thread's: otherwise it
   * renews the lease under the same token just before the release lands and deletes it, and this
   * instance works on a thread it no longer holds while another takes it.
   */
  private readonly releasing = new Map<string, Promise<void>>();
  private gateway: RoutedGateway | undefined;
  private readonly logger: Logger;
  /** Replies on their way here outside a thread's lease, by thread. */
  private readonly sendingCount = new Map<string, number>();
  /** The lease under which each thread's kernel was last recorded here (recorded once per lease). */
  private readonly kernels = new Map<string, ThreadLease>();

  constructor(
    private readonly coordinator: RedisCoordinator,
    logger: Logger = silentLogger(),
    /** How long a kernel record lasts: an idle kernel ends after code_execution.kernel_idle_timeout anyway. */
    private readonly kernelTtlMs = 1_800_000,
  ) {
    this.logger = logger.child({ component: 'thread-router', instance: coordinator.instanceId });
  }

  /**
   * True once when the thread's Python state was in another instance's session kernel (the
   * thread moved here, or that instance died): this turn starts without it.
   */
  async kernelMoved(threadKey: string): Promise<boolean> {
    try {
      return await this.coordinator.kernelMoved(threadKey);
    } catch (error) {
      this.logger.warn({ thread: threadKey, err: errorMessage(error) }, 'could not read where the thread’s kernel was');
      return false;
    }
  }

  /** The thread started a new session (/new): its earlier kernel state is gone on purpose, nothing to tell. */
  kernelReset(threadKey: string): void {
    this.kernels.delete(threadKey);
    this.coordinator.forgetKernel(threadKey).catch((error: unknown) => this.logger.warn({ thread: threadKey, err: errorMessage(error) }, 'could not forget where the thread’s kernel was'));
  }

  /** execute_code runs here for the thread: its state is in this instance's kernel now. */
  kernelHere(threadKey: string): void {
    const lease = this.held.get(threadKey)?.lease;
    if (!lease || this.kernels.get(threadKey) === lease) return;
    this.kernels.set(threadKey, lease);
    this.coordinator
      .recordKernel(lease, this.kernelTtlMs)
      .catch((error: unknown) => this.logger.warn({ thread: threadKey, err: errorMessage(error) }, 'could not record where the thread’s kernel is'));
  }

  /** The gateway whose lanes this router fills; set before messages arrive. */
  attach(gateway: RoutedGateway): void {
    this.gateway = gateway;
  }

  /** A message passed here by another instance. */
  async receive(payload: unknown): Promise<void> {
    const passed = readPassedInbound(payload);
    if ('problem' in passed) {
      this.logger.error({ problem: passed.problem }, 'a passed message that is not a chat message was refused');
      return;
    }
    // Through dispatchPassed even without files: there the reply target is read by its platform.
    await this.gateway?.dispatchPassed(passed.message, passed.attachments);
  }

  /** True when the message runs here; false when it went to the thread's owner (or could not be placed). */
  async claim(message: InboundMessage): Promise<boolean> {
    const key = message.threadKey;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const lease = await this.holdHere(key);
      if (lease === 'taken') this.releaseUnlessBusy(key);
      if (lease) return true;
      const owner = await this.coordinator.leases.owner(key);
      if (owner && owner !== this.coordinator.instanceId && !(await this.coordinator.isAlive(owner))) {
        // The owner died: what was passed to it and never read comes first (moved to this
        // instance's inbox, this message behind it), then this message, once the dead owner's lease has lapsed.
        if ((await this.coordinator.takeOver(owner)) > 0) {
          this.logger.warn({ thread: key, dead: owner }, 'took over the messages passed to an instance that died; this message runs after them');
          await this.coordinator.passToSelf(key, portable(message));
          return false;
        }
        await this.lapse(key, owner);
        continue;
      }
      if (owner && owner !== this.coordinator.instanceId) {
        // Should the owner die before it reads it, a live instance's sweep takes it over once the owner's heartbeat lapses.
        await this.coordinator.passMessage(owner, key, portable(message));
        return false;
      }
    }
    this.logger.error({ thread: key }, 'message dropped: the thread lease kept changing hands');
    return false;
  }

  /**
   * Takes the thread for work that came with no message (replies an earlier run left unsent):
   * true when this instance holds it now, false while a live instance does (the work is left to
   * it). A dead owner's lease is waited out. Call `done` when the work is over.
   */
  async take(threadKey: string): Promise<boolean> {
    if (await this.coordinator.othersSending(threadKey)) return false;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (await this.holdHere(threadKey)) return true;
      const owner = await this.coordinator.leases.owner(threadKey);
      if (owner && (await this.coordinator.isAlive(owner))) return false;
      if (owner) await this.lapse(threadKey, owner);
    }
    return false;
  }

  /**
   * Replies go out in the thread outside its lease (a job's output, a command's answer): marked
   * in Redis first, so an instance starting meanwhile leaves them to this one. Returns the unmark.
   */
  async sending(threadKey: string): Promise<() => void> {
    const count = (this.sendingCount.get(threadKey) ?? 0) + 1;
    this.sendingCount.set(threadKey, count);
    if (count === 1) {
      await this.coordinator.markSending(threadKey, true).catch((error: unknown) => this.logger.warn({ thread: threadKey, err: errorMessage(error) }, 'could not mark replies on their way'));
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.sendingCount.get(threadKey) ?? 1) - 1;
      if (left > 0) {
        this.sendingCount.set(threadKey, left);
        return;
      }
      this.sendingCount.delete(threadKey);
      this.coordinator.markSending(threadKey, false).catch((error: unknown) => this.logger.warn({ thread: threadKey, err: errorMessage(error) }, 'could not unmark replies on their way'));
    };
  }

  /** Work taken with `take` is over: the lease goes unless the thread has messages running or waiting here. */
  done(threadKey: string): void {
    this.releaseUnlessBusy(threadKey);
  }

  /** The thread has nothing running or waiting here: give its lease up. */
  idle(threadKey: string): void {
    const keeper = this.held.get(threadKey);
    if (!keeper) return;
    this.held.delete(threadKey);
    this.kernels.delete(threadKey);
    const released = keeper.release().catch((error: unknown) => this.logger.warn({ thread: threadKey, err: errorMessage(error) }, 'releasing a thread lease failed; it lapses on its own'));
    this.releasing.set(threadKey, released);
    void released.then(() => {
      if (this.releasing.get(threadKey) === released) this.releasing.delete(threadKey);
    });
  }

  /**
   * `held` when this instance holds the thread's lease already, `taken` when it took it now,
   * undefined while another instance holds it.
   */
  private async holdHere(threadKey: string): Promise<'held' | 'taken' | undefined> {
    if (this.held.get(threadKey)?.held) return 'held';
    this.held.delete(threadKey);
    const keeper = await this.hold(threadKey);
    if (!keeper) return undefined;
    // Another claim here took it meanwhile: the same lease (same token), one keeper is enough.
    if (this.held.get(threadKey)?.held) keeper.stopRenewing();
    else this.held.set(threadKey, keeper);
    return 'taken';
  }

  /** Takes the thread's lease (after this instance's own release of it has landed), or undefined while another instance holds it. */
  private async hold(threadKey: string): Promise<LeaseKeeper | undefined> {
    await this.releasing.get(threadKey);
    return this.coordinator.hold(threadKey, (lease) => this.lost(lease));
  }

  /** Gives every held lease up (shutdown), so other instances take the threads at once. */
  async close(): Promise<void> {
    const keepers = [...this.held.values()];
    this.held.clear();
    await Promise.allSettled(keepers.map((keeper) => keeper.release()));
  }

  /** Waits (bounded by the lease's TTL) until the dead owner's lease on the thread has lapsed. */
  private async lapse(threadKey: string, dead: string): Promise<void> {
    const until = Date.now() + this.coordinator.leaseMs + 1000;
    while (Date.now() < until && (await this.coordinator.leases.owner(threadKey)) === dead) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** A command answered without a turn leaves no lane to say it is idle: check once it was dispatched. */
  private releaseUnlessBusy(threadKey: string): void {
    setImmediate(() => {
      const state = this.gateway?.threadState(threadKey);
      if (state && !state.running && state.queued === 0) this.idle(threadKey);
    });
  }

  private lost(lease: ThreadLease): void {
    if (this.held.get(lease.threadKey)?.lease === lease) this.held.delete(lease.threadKey);
    this.logger.warn({ thread: lease.threadKey, token: lease.token }, 'lost a thread lease (this instance stalled past coordination.lease_seconds); another instance has the thread');
  }
}

/** The message as plain data: its files as what they are and where to fetch them again (the owner reopens them). */
function portable(message: InboundMessage): Omit<InboundMessage, 'attachments'> & { attachments?: PassedAttachment[] } {
  const { attachments, ...rest } = message;
  return attachments?.length ? { ...rest, attachments: passableAttachments(attachments) } : rest;
}
