/** Hears one thread's live events, in the order they were published. */
export type LiveListener<E> = (event: E) => void;

/**
 * How a thread's live events reach the pages that watch it. One gateway: `LocalLiveHub`, in
 * process. Several instances behind a load balancer: one that also carries them to the other
 * instances (`RedisLiveHub`), where other pages watch. The events are the platform's (the web
 * chat's); the hub reads them only through `LiveEvents`.
 */
export interface LiveChannel<E> {
  /** Starts delivering the thread's events to `listener` (at once, in order); returns the unsubscribe. */
  subscribe(threadId: string, listener: LiveListener<E>): () => void;
  /** Delivers to this instance's listeners now, and to the other instances' if there are any. */
  publish(threadId: string, event: E): void;
  /** True while a turn runs in the thread on another instance (never, with one gateway). */
  busyElsewhere(threadId: string): boolean;
  /** Resolves once what was published so far has reached the other instances (at once, with one gateway). */
  flushed(): Promise<void>;
  /** Open streams on this instance, across all threads. */
  readonly size: number;
  /** True when other instances publish on this channel too (they write the same files). */
  readonly shared: boolean;
}

/** What a hub that crosses instances must know of the platform's events. */
export interface LiveEvents<E> {
  /** An event read back from another instance (untrusted JSON), or undefined when it is none. */
  parse(value: unknown): E | undefined;
  /** True when the event says a turn started in its thread, false when one ended, undefined otherwise. */
  busy(event: E): boolean | undefined;
  /** Whether the event says the thread is gone. */
  deleted(event: E): boolean;
  /** What the pages hear when the instance running a turn died (the turn is over). */
  readonly ended: E;
}

/** Fans a thread's live events out to the pages that watch it (one listener per open stream). */
export class LocalLiveHub<E> implements LiveChannel<E> {
  private readonly listeners = new Map<string, Set<LiveListener<E>>>();
  readonly shared = false;

  subscribe(threadId: string, listener: LiveListener<E>): () => void {
    let set = this.listeners.get(threadId);
    if (!set) this.listeners.set(threadId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(threadId) === set) this.listeners.delete(threadId);
    };
  }

  publish(threadId: string, event: E): void {
    for (const listener of this.listeners.get(threadId) ?? []) listener(event);
  }

  busyElsewhere(): boolean {
    return false;
  }

  flushed(): Promise<void> {
    return Promise.resolve();
  }

  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
