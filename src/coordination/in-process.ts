import type { JobClaims } from '../cron/index.js';
import { ONE_INSTANCE } from '../gateway/index.js';
import type { Coordination } from './coordination.js';
import { EVERY_EVENT_HERE } from './event-claims.js';
import { LocalLiveHub } from './live-hub.js';
import { LIMITS_IN_PROCESS } from './rate-limits.js';

/** One instance: every due run is its own (the scheduler's own default, stated here). */
const OWN_RUNS: JobClaims = { claim: async () => 'run', finished: async () => {} };

/** The gateway alone (`coordination.backend: none`): every thread, event and run is this instance's. */
export function inProcessCoordination(): Coordination {
  return {
    threads: { ...ONE_INSTANCE, attach: () => {} },
    eventClaims: EVERY_EVENT_HERE,
    rateLimits: LIMITS_IN_PROCESS,
    jobClaims: OWN_RUNS,
    liveHub: async <E>() => new LocalLiveHub<E>(),
    close: async () => {},
  };
}
