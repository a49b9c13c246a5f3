import type { HermesConfig } from '../config/index.js';
import type { Logger } from '../shared/logger.js';
import { RedisCoordinator } from './coordinator.js';
import type { RedisJobClaims } from './job-claims.js';
import { redisUrlFrom } from './redis-url.js';
import { ThreadRouter } from './thread-router.js';

export interface GatewayCoordination {
  /** Give it to the Gateway (`router`) and `attach` the gateway to it. */
  router: ThreadRouter;
  /** Give them to the job scheduler: one instance runs each scheduled run. */
  jobClaims: RedisJobClaims;
  /** Releases this instance's leases and closes its Redis connections. */
  close(): Promise<void>;
}

/**
 * `coordination.backend: redis` for `hermes gateway`: this instance joins the others on the
 * same Redis. Interrupts need nothing of their own here: a new message or /stop is passed to
 * the thread's owner and interrupts its lane there like a local one.
 */
export async function startGatewayCoordination(config: HermesConfig, env: NodeJS.ProcessEnv, logger: Logger): Promise<GatewayCoordination> {
  const url = redisUrlFrom(config, env);
  // The inbox reads from the start; the router that takes what it reads comes right after.
  const late: { router?: ThreadRouter } = {};
  const coordinator = await RedisCoordinator.connect(
    { url, leaseTtlMs: config.coordination.lease_seconds * 1000, logger },
    {
      message: async (_threadKey, payload) => late.router?.receive(payload),
      interrupt: () => undefined,
    },
  );
  // A kernel record outlives the kernel by no more than its idle timeout.
  const made = new ThreadRouter(coordinator, logger, config.code_execution.kernel_idle_timeout * 1000);
  late.router = made;
  return {
    router: made,
    jobClaims: coordinator.jobClaims(jobClaimMs(config)),
    close: async () => {
      await made.close();
      await coordinator.close();
    },
  };
}

/** A claim outlives any run: a script's cap and its kill grace, twice, and at least an hour (a prompt's turn has no fixed cap). */
function jobClaimMs(config: HermesConfig): number {
  const script = (config.code_execution.timeout + config.code_execution.kill_grace) * 1000;
  return Math.max(3_600_000, 2 * script);
}
