import type { LiveEvent } from './types.js';

export type LiveListener = (event: LiveEvent) => void;

/** Fans a thread's live events out to the pages that watch it (one listener per open stream). */
export class LiveHub {
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

  /** Open streams across all threads (for tests and /status-like views). */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
