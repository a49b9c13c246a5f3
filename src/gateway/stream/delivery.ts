import { errorMessage } from '../../shared/errors.js';
import { KeyedQueue } from '../../shared/keyed-queue.js';
import { backoffMs, retry } from '../../shared/retry.js';
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
  /** One key: this thread's parts, one after another. */
  private readonly queue = new KeyedQueue();

  constructor(private readonly options: DeliveryOptions) {}

  /** True while something waits or runs. */
  get busy(): boolean {
    return this.queue.size > 0;
  }

  /** Runs `task` after everything queued before it; its failure is returned, never thrown into the queue. */
  run<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run('parts', task);
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
    if (signal.aborted) return;
    const verdict = (error: unknown) => this.options.verdict?.(error) ?? { retry: true };
    let tries = 0;
    try {
      await retry(
        async () => {
          tries++;
          const { messageId } = await message.finish(text);
          outbox.delivered(seq, messageId);
        },
        {
          retries: MAX_ATTEMPTS - 1,
          signal,
          shouldRetry: (error) => !signal.aborted && verdict(error).retry,
          delayMs: (error, attempt) => verdict(error).afterMs ?? backoffMs(attempt, { firstMs: FIRST_BACKOFF_MS, maxMs: MAX_BACKOFF_MS }),
          onRetry: (error, attempt, waitMs) => {
            outbox.attempted(seq, false);
            logger.warn({ err: error, seq, attempt, waitMs }, 'a reply part was not delivered; trying again');
          },
        },
      );
    } catch (error) {
      // Shutdown: what is left is delivered after the restart.
      if (signal.aborted) return;
      outbox.attempted(seq, true);
      logger.error({ err: error, seq, attempt: tries }, `a reply part could not be delivered; given up (${errorMessage(error)})`);
    }
  }
}
