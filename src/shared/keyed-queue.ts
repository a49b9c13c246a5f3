/**
 * Runs tasks one at a time per key, in the order they were added; different keys run side
 * by side. A task that fails does not stop the ones after it. Keys with nothing queued are
 * forgotten, so a quiet key costs nothing.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of `key` has settled; resolves or rejects as it does. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.catch(() => undefined);
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return next;
  }

  /** Keys with a task running or waiting. */
  get size(): number {
    return this.tails.size;
  }

  /** Resolves once every task added so far has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.tails.values()]);
  }
}
