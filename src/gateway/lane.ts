import type { Logger } from '../shared/logger.js';
import { InterruptReason } from '../shared/notices.js';
import type { InboundMessage } from './types.js';
import type { Semaphore } from '../shared/semaphore.js';

/** The reason a turn gets when a new message in its thread interrupts it. */

export type BusyInputMode = 'interrupt' | 'queue' | 'steer';

export interface LaneDeps {
  semaphore: Semaphore;
  mode: BusyInputMode;
  /**
   * Runs one turn for the messages (several when they arrived while the thread was busy).
   * `steer` hands over the texts of messages that arrived meanwhile in `steer` mode.
   */
  runTurn(messages: InboundMessage[], signal: AbortSignal, steer?: () => string[]): Promise<void>;
  /** Starts a new session for the thread (`/new`), after its turn has settled. */
  reset(): Promise<void>;
  /** Called whenever the lane has become idle (the gateway forgets idle lanes). */
  onIdle?(): void;
  logger: Logger;
}

type Item =
  | { kind: 'message'; message: InboundMessage }
  /** Work that runs between turns: /new, /undo, /retry, /compress. */
  | { kind: 'control'; run: () => Promise<void>; resolve: () => void; reject: (error: unknown) => void };

/**
 * One thread's lane: one turn at a time, in arrival order. A message that arrives while a
 * turn runs interrupts it (`interrupt` mode), waits (`queue` mode), or joins the running turn
 * at its next tool-call boundary (`steer` mode: a running script is not killed; a message the
 * turn did not take runs next). It is never lost. In `interrupt` mode, messages that piled up
 * while the thread was busy run as one turn.
 */
export class ThreadLane {
  private readonly pending: Item[] = [];
  private current: { controller: AbortController; messages: InboundMessage[]; steered: InboundMessage[] } | undefined;
  /** Aborts the wait for a gateway-wide slot (stop, reset, shutdown). */
  private waiting: AbortController | undefined;
  private draining = false;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    readonly threadKey: string,
    private readonly deps: LaneDeps,
  ) {}

  /** True while a turn runs. */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** Messages waiting behind the running turn (or for a slot). */
  get queued(): number {
    return this.pending.filter((item) => item.kind === 'message').length;
  }

  /** True when nothing runs or waits. */
  get idle(): boolean {
    return !this.draining && this.pending.length === 0;
  }

  /** Takes a message; returns at once (the turn runs in the lane). */
  push(message: InboundMessage): void {
    if (this.closed) return;
    // Files go with a turn of their own: only text joins a running one.
    if (this.deps.mode === 'steer' && this.current && !message.attachments?.length) {
      this.deps.logger.info({ thread: this.threadKey }, 'new message steers the running turn');
      this.current.steered.push(message);
      return;
    }
    this.pending.push({ kind: 'message', message });
    if (this.deps.mode === 'interrupt' && this.current) {
      this.deps.logger.info({ thread: this.threadKey }, 'new message interrupts the running turn');
      this.current.controller.abort(InterruptReason.newMessage);
    }
    void this.drain();
  }

  /**
   * Aborts the running turn with `reason` and drops the messages waiting behind it.
   * Returns what it did, for the reply.
   */
  stop(reason: string): { stoppedTurn: boolean; dropped: number } {
    const dropped = this.dropMessages() + (this.current?.steered.splice(0).length ?? 0);
    const stoppedTurn = this.current !== undefined;
    this.current?.controller.abort(reason);
    this.waiting?.abort(reason);
    return { stoppedTurn, dropped };
  }

  /**
   * `/new`: stops the running turn, drops waiting messages, and once the turn has settled
   * starts a new session. Messages that arrive meanwhile run in the new session.
   */
  reset(reason: string): Promise<void> {
    return this.between(() => this.deps.reset(), reason);
  }

  /**
   * Runs `task` once the running turn has settled and before the messages that arrive after
   * it (/undo, /retry, /compress). With `stopReason`, the running turn is stopped first and
   * waiting messages are dropped.
   */
  between(task: () => Promise<void>, stopReason?: string): Promise<void> {
    if (stopReason) this.stop(stopReason);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ kind: 'control', run: task, resolve, reject });
      void this.drain();
    });
  }

  /** Shutdown: aborts everything with `reason` and takes no more messages. */
  close(reason: string): void {
    this.closed = true;
    this.stop(reason);
    for (const item of this.pending.splice(0)) if (item.kind === 'control') item.resolve();
  }

  /** Resolves once nothing runs or waits in this lane. */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private dropMessages(): number {
    let dropped = 0;
    for (let i = this.pending.length - 1; i >= 0; i--) {
      if (this.pending[i].kind === 'message') {
        this.pending.splice(i, 1);
        dropped++;
      }
    }
    return dropped;
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    let release: (() => void) | undefined;
    try {
      while (this.pending.length > 0 && !this.closed) {
        const head = this.pending[0];
        if (head.kind === 'control') {
          this.pending.shift();
          release?.();
          release = undefined;
          await head.run().then(head.resolve, head.reject);
          continue;
        }
        if (!release) {
          const wait = new AbortController();
          this.waiting = wait;
          try {
            release = await this.deps.semaphore.acquire(wait.signal);
          } catch {
            continue; // stopped while waiting: `pending` has changed
          } finally {
            this.waiting = undefined;
          }
        }
        const messages = this.takeBatch();
        if (messages.length === 0) continue;
        const controller = new AbortController();
        const current = { controller, messages, steered: [] as InboundMessage[] };
        this.current = current;
        const steer = this.deps.mode === 'steer' ? () => current.steered.splice(0).map((message) => message.text) : undefined;
        try {
          await this.deps.runTurn(messages, controller.signal, steer);
        } catch (error) {
          this.deps.logger.error({ err: error, thread: this.threadKey }, 'turn failed outside the agent');
        } finally {
          this.current = undefined;
          // What the turn did not take (it ended first) runs next, in order.
          if (current.steered.length > 0 && !this.closed) this.pending.unshift(...current.steered.map((message) => ({ kind: 'message' as const, message })));
        }
        // A turn interrupted by a new message hands its slot straight to that message.
        const handOver =
          controller.signal.reason === InterruptReason.newMessage && this.pending[0]?.kind === 'message' && !this.closed;
        if (!handOver) {
          release();
          release = undefined;
        }
      }
    } finally {
      release?.();
      this.draining = false;
      if (this.closed) this.pending.splice(0);
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      if (this.idle) this.deps.onIdle?.();
    }
  }

  /** The messages the next turn answers: all waiting ones in interrupt mode, else the first. */
  private takeBatch(): InboundMessage[] {
    const batch: InboundMessage[] = [];
    while (this.pending[0]?.kind === 'message') {
      batch.push((this.pending.shift() as { message: InboundMessage }).message);
      if (this.deps.mode === 'queue') break;
    }
    return batch;
  }
}
