import { errorMessage } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import type { RedisThreadLeases } from './leases.js';
import type { ThreadLease } from './types.js';

/**
 * Renews a held lease at a third of its TTL until stopped, so it lapses only when this
 * instance stops renewing (it died or hung). `onLost` runs once if a renewal is refused: a
 * later owner has the thread and this instance must stop working on it.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> = Promise.resolve();
  private lost = false;

  constructor(
    private readonly leases: RedisThreadLeases,
    readonly lease: ThreadLease,
    ttlMs: number,
    private readonly onLost: (lease: ThreadLease) => void,
    private readonly logger: Logger = silentLogger(),
  ) {
    this.timer = setInterval(() => {
      this.renewing = this.renewing.then(() => this.renew());
    }, Math.max(1, Math.floor(ttlMs / 3)));
    this.timer.unref();
  }

  /** False once a renewal was refused. */
  get held(): boolean {
    return !this.lost;
  }

  /** Stops renewing and gives the lease up (when it is still this owner's). */
  async release(): Promise<void> {
    this.stopRenewing();
    await this.renewing;
    if (!this.lost) await this.leases.release(this.lease);
  }

  /** Stops renewing without releasing: the lease lapses after its TTL. */
  stopRenewing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renew(): Promise<void> {
    if (this.lost || !this.timer) return;
    try {
      if (await this.leases.renew(this.lease)) return;
    } catch (error) {
      // Redis out of reach: keep trying while the TTL lasts; a later owner shows as a refusal.
      this.logger.warn({ thread: this.lease.threadKey, err: errorMessage(error) }, 'thread lease renewal failed');
      return;
    }
    this.lost = true;
    this.stopRenewing();
    this.onLost(this.lease);
  }
}
