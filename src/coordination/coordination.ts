import type { JobClaims } from '../cron/index.js';
import type { GatewayThreadRouter } from '../gateway/index.js';
import type { EventClaims } from './event-claims.js';
import type { LiveChannel, LiveEvents } from './live-hub.js';
import type { RateLimitStore } from './rate-limits.js';
import type { RoutedGateway } from './thread-router.js';

/** The gateway's threads across instances: leases, inboxes, sending marks and kernel records behind the router the Gateway calls. */
export interface ThreadCoordination extends GatewayThreadRouter {
  /** The gateway whose lanes get what other instances pass here; set before messages arrive. */
  attach(gateway: RoutedGateway): void;
}

/**
 * Everything several gateway instances share, in one seam: chosen once where the gateway is
 * put together (`hermes gateway`: in process, or Redis with `coordination.backend: redis`) and
 * handed to whoever needs a part of it. No one else asks which backend it is.
 */
export interface Coordination {
  /** Give it to the Gateway (`router`), then `attach` the gateway. */
  readonly threads: ThreadCoordination;
  /** Which instance takes a platform event that several receive (the chat adapters). */
  readonly eventClaims: EventClaims;
  /** Where a platform's rate limiters keep their state (Telegram's throttler). */
  readonly rateLimits: RateLimitStore;
  /** Which instance runs a scheduled job's due run (the job scheduler). */
  readonly jobClaims: JobClaims;
  /** A channel of live events (the web chat's pages), across the instances; `events` says how to read them. */
  liveHub<E>(channel: string, events: LiveEvents<E>): Promise<LiveChannel<E>>;
  /** Releases this instance's threads and closes its connections (live hubs included). */
  close(): Promise<void>;
}

/** What a platform adapter may take from the coordination. */
export type PlatformCoordination = Pick<Coordination, 'eventClaims' | 'rateLimits'>;
