import type { LiveEvent } from './types.js';

export type LiveListener = (event: LiveEvent) => void;

/**
 * How a thread's live events reach the pages that watch it. One gateway: `LiveHub`, in
 * process. Several instances behind a load balancer: an implementation that also carries
 * them to the other instances (src/coordination/web-live-hub.ts), where other pages watch.
 */
export interface LiveChannel {
  /** Starts delivering the thread's events to `listener` (at once, in order); returns the unsubscribe. */
  subscribe(threadId: string, listener: LiveListener): () => void;
  /** Delivers to this instance's listeners now, and to the other instances' if there are any. */
  publish(threadId: string, event: LiveEvent): void;
  /** True while a turn runs in the thread on another instance (never, with one gateway). */
  busyElsewhere(threadId: string): boolean;
  /** Resolves once what was published so far has reached the other instances (at once, with one gateway). */
  flushed(): Promise<void>;
  /** Open streams on this instance, across all threads. */
  readonly size: number;
}

/** Fans a thread's live events out to the pages that watch it (one listener per open stream). */
export class LiveHub implements LiveChannel {
  private readonly listeners = new Map<string, Set<LiveListener>>();

  /** Starts delivering the thread's events to `listener`; returns the unsubscribe. */
  subscribe(threadId: string, listener: LiveListener): () => void {
    let set = this.listeners.get(threadId);
    if (!set) this.listeners.set(threadId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(threadId) === set) this.listeners.delete(threadId);
    };
  }

  publish(threadId: string, event: LiveEvent): void {
    for (const listener of this.listeners.get(threadId) ?? []) listener(event);
  }

  busyElsewhere(): boolean {
    return false;
  }

  flushed(): Promise<void> {
    return Promise.resolve();
  }

  /** Open streams across all threads (for tests and /status-like views). */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
