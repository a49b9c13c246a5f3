interface Waiter {
  resolve: (release: () => void) => void;
  reject: (reason: unknown) => void;
  cleanup: () => void;
}

/** At most `limit` holders at once; the others wait in the order they asked. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Waiter[] = [];

  constructor(readonly limit: number) {}

  /** Holders right now. */
  get inUse(): number {
    return this.active;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Resolves with a release function once a slot is free. Rejects with `signal.reason` when
   * the signal aborts first (the caller leaves the line without taking a slot).
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = { resolve, reject, cleanup: () => signal?.removeEventListener('abort', onAbort) };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) {
        // The slot passes straight to the next waiter; `active` stays the same.
        next.cleanup();
        next.resolve(this.releaser());
      } else {
        this.active--;
      }
    };
  }
}
