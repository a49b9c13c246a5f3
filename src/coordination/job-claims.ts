import type { Redis } from 'ioredis';
import { passTo } from './inbox.js';
import type { CoordinationKeys } from './keys.js';

/**
 * What a claim on a scheduled run says: `run` (this instance runs it), `taken` (another instance
 * claimed it; the job's next run comes from the store), `busy` (this instance claimed it, but the
 * job's last run still goes on at a live instance, so this one is skipped).
 */
export type JobClaim = 'run' | 'taken' | 'busy';

/*
 * One step in Redis, so two instances never both get `run`: KEYS[1] is the run's claim (SET NX,
 * kept past the run's cap), KEYS[2] the job's running mark, ARGV[3] the heartbeat key prefix: a
 * mark left by an instance whose heartbeat lapsed (it died mid-run) does not count.
 */
const CLAIM = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 0
end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] and redis.call('EXISTS', ARGV[3] .. holder) == 1 then
  return 2
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1`;

const FINISH = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * Scheduled runs claimed in Redis (`coordination.backend: redis`): of several instances whose
 * schedulers find the same run due, exactly one runs it.
 */
export class RedisJobClaims {
  private stopper: ((jobId: string, reason: string) => void) | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly instanceId: string,
    /** How long a claim and a running mark last: longer than a run may take. */
    private readonly ttlMs: number,
    private readonly keys: CoordinationKeys,
  ) {}

  async claim(jobId: string, scheduledAt: number): Promise<JobClaim> {
    const alivePrefix = this.keys.alive('');
    const done = Number(await this.redis.eval(CLAIM, 2, this.keys.jobRun(jobId, scheduledAt), this.keys.jobRunning(jobId), this.instanceId, this.ttlMs, alivePrefix));
    return done === 1 ? 'run' : done === 2 ? 'busy' : 'taken';
  }

  /**
   * Asks the live instance running the job's claimed run to stop it (through its inbox); false
   * when no other live instance runs it.
   */
  async stopElsewhere(jobId: string, threadKey: string, reason: string): Promise<boolean> {
    const holder = await this.redis.get(this.keys.jobRunning(jobId));
    if (!holder || holder === this.instanceId || (await this.redis.exists(this.keys.alive(holder))) !== 1) return false;
    await passTo(this.redis, holder, { kind: 'stop-job', threadKey, jobId, reason, from: this.instanceId }, this.keys);
    return true;
  }

  /** Whether another live instance runs the job's claimed run now. */
  async runningElsewhere(jobId: string): Promise<boolean> {
    const holder = await this.redis.get(this.keys.jobRunning(jobId));
    return !!holder && holder !== this.instanceId && (await this.redis.exists(this.keys.alive(holder))) === 1;
  }

  /** Who stops a run here when another instance asks (the scheduler). */
  onStop(stopper: (jobId: string, reason: string) => void): void {
    this.stopper = stopper;
  }

  /** Another instance asked to stop the job's run here. */
  stopHere(jobId: string, reason: string): void {
    this.stopper?.(jobId, reason);
  }

  /** The run this instance claimed is over: the job's next run may start anywhere. */
  async finished(jobId: string): Promise<void> {
    await this.redis.eval(FINISH, 1, this.keys.jobRunning(jobId), this.instanceId);
  }
}
