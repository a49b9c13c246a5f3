import { abortText } from './abort.js';

/** At most `limit` holders at once; waiters queue in order and leave when their signal aborts. */
export class Limiter {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {}

  get running(): number {
    return this.active;
  }

  /** Resolves with a release function once a slot is free; rejects with the abort reason if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    const release = () => {
      this.active--;
      this.queue.shift()?.();
    };
    const grant = () => {
      this.active++;
      let released = false;
      return () => {
        if (!released) {
          released = true;
          release();
        }
      };
    };
    if (signal?.aborted) return Promise.reject(new Error(abortText(signal)));
    if (this.active < this.limit) return Promise.resolve(grant());
    return new Promise((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(grant());
      };
      const onAbort = () => {
        const index = this.queue.indexOf(wake);
        if (index >= 0) this.queue.splice(index, 1);
        reject(new Error(abortText(signal)));
      };
      this.queue.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
