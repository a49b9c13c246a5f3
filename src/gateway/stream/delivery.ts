import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { OutboxStore } from '../outbox/store.js';
import type { DeliveryVerdict, StreamedMessage } from '../types.js';

/** Attempts per part before it is given up (the SDKs retry 429s and 5xx underneath each one). */
const MAX_ATTEMPTS = 6;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

export interface DeliveryOptions {
  outbox: OutboxStore;
  logger: Logger;
  /** Ends waits between attempts at shutdown: what is left is delivered after the restart. */
  signal: AbortSignal;
  /** Whether an error is worth another attempt, and when (the adapter's `deliveryVerdict`). */
  verdict?: (error: unknown) => DeliveryVerdict;
}

/**
 * The order replies reach one thread in: every part's first appearance and its final text go
 * through one queue per thread, one after another, so parts arrive in order across turns.
 */
export class ThreadDelivery {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(private readonly options: DeliveryOptions) {}

  /** True while something waits or runs. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /** Runs `task` after everything queued before it; its failure is returned, never thrown into the queue. */
  run<T>(task: () => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(task);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    ).finally(() => this.pending--);
    return result;
  }

  /**
   * Puts part `seq`'s final `text` in place through `message` (an edit, a stream's stop, or a
   * send), retrying what the adapter calls transient, and marks it delivered once confirmed.
   * Resolves when it is delivered, given up, or left for after a restart (shutdown).
   */
  deliver(seq: number, text: string, message: StreamedMessage, after?: Promise<unknown>): Promise<void> {
    return this.run(async () => {
      // The part's last update (outside the queue) lands before its final text.
      await after;
      return this.attempt(seq, text, message);
    });
  }

  private async attempt(seq: number, text: string, message: StreamedMessage): Promise<void> {
    const { outbox, logger, signal } = this.options;
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) return;
      try {
        const { messageId } = await message.finish(text);
        outbox.delivered(seq, messageId);
        return;
      } catch (error) {
        if (signal.aborted) return;
        const verdict = this.options.verdict?.(error) ?? { retry: true };
        const giveUp = !verdict.retry || attempt >= MAX_ATTEMPTS;
        outbox.attempted(seq, giveUp);
        if (giveUp) {
          logger.error({ err: error, seq, attempt }, `a reply part could not be delivered; given up (${errorMessage(error)})`);
          return;
        }
        const wait = verdict.afterMs ?? Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
        logger.warn({ err: error, seq, attempt, waitMs: wait }, 'a reply part was not delivered; trying again');
        try {
          await sleep(wait, undefined, { signal });
        } catch {
          return;
        }
      }
    }
  }
}
