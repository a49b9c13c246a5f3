/** A set that remembers only the latest `capacity` keys; enough to drop redelivered events. */
export class RecentSet {
  private readonly keys = new Set<string>();

  constructor(private readonly capacity = 5000) {}

  /** Adds `key`; returns false when it was already there. */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > this.capacity) {
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    return true;
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  delete(key: string): void {
    this.keys.delete(key);
  }
}
