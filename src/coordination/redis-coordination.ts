import type { HermesConfig } from '../config/index.js';
import type { Logger } from '../shared/logger.js';
import type { Coordination } from './coordination.js';
import { RedisCoordinator } from './coordinator.js';
import type { LiveEvents } from './live-hub.js';
import { redisRateLimits } from './rate-limits.js';
import { RedisLiveHub } from './redis-live-hub.js';
import { redisUrlFrom } from './redis-url.js';
import { ThreadRouter } from './thread-router.js';
import { DEFAULT_PREFIX } from './keys.js';

export interface RedisCoordinationOptions {
  /** This instance's name in leases and inboxes; random when unset (a restart is a new owner). */
  instanceId?: string;
  /** Key prefix, so several gateways (or tests) can share a Redis database. */
  prefix?: string;
}

/**
 * `coordination.backend: redis`: this instance joins the others on the same Redis. Interrupts
 * need nothing of their own here: a new message or /stop is passed to the thread's owner and
 * interrupts its lane there like a local one. Every connection is made through `connectRedis`.
 */
export async function connectRedisCoordination(config: HermesConfig, env: NodeJS.ProcessEnv, logger: Logger, options: RedisCoordinationOptions = {}): Promise<Coordination> {
  const url = redisUrlFrom(config, env);
  const leaseTtlMs = config.coordination.lease_seconds * 1000;
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  // The inbox reads from the start; the router that takes what it reads comes right after.
  const late: { router?: ThreadRouter } = {};
  const coordinator = await RedisCoordinator.connect(
    { url, leaseTtlMs, logger, prefix, ...(options.instanceId ? { instanceId: options.instanceId } : {}) },
    {
      message: async (_threadKey, payload) => late.router?.receive(payload),
      interrupt: () => undefined,
    },
  );
  // A kernel record outlives the kernel by no more than its idle timeout.
  const router = new ThreadRouter(coordinator, logger, config.code_execution.kernel_idle_timeout * 1000);
  late.router = router;
  const rateLimits = redisRateLimits(url, prefix, logger);
  const hubs: Array<{ close(): Promise<void> }> = [];
  return {
    threads: router,
    eventClaims: coordinator.eventClaims(),
    rateLimits,
    jobClaims: coordinator.jobClaims(jobClaimMs(config)),
    // The thread leases' TTL bounds how long a dead instance's turn still shows as running.
    liveHub: async <E>(channel: string, events: LiveEvents<E>) => {
      const hub = await RedisLiveHub.connect({ url, channel, events, ttlMs: leaseTtlMs, prefix, logger });
      hubs.push(hub);
      return hub;
    },
    close: async () => {
      for (const hub of hubs.splice(0)) await hub.close();
      await router.close();
      await rateLimits.close();
      await coordinator.close();
    },
  };
}

/** A claim outlives any run: a script's cap and its kill grace, twice, and at least an hour (a prompt's turn has no fixed cap). */
function jobClaimMs(config: HermesConfig): number {
  const script = (config.code_execution.timeout + config.code_execution.kill_grace) * 1000;
  return Math.max(3_600_000, 2 * script);
}
