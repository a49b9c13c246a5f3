import type { Redis } from 'ioredis';
import { coordinationKeys, type CoordinationKeys } from './keys.js';
import type { ThreadLease } from './types.js';

/*
 * Lua runs atomically in Redis: each check of the owner and its change are one step, so
 * an owner whose lease lapsed cannot renew or release the next owner's lease.
 * KEYS[1] is the lease (its value the owner), KEYS[2] the fence (the last token handed out).
 */

/** SET NX PX, and a new token from INCR when that made a new owner; the holder gets its own token back. */
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(redis.call('GET', KEYS[2]))
end
return 0`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('GET', KEYS[2]) == ARGV[3] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('GET', KEYS[2]) == ARGV[2] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/** SET KEYS[3] (for ARGV[3] ms when given) only while ARGV[1] is the thread's newest token: a stale owner's write is refused. */
const FENCED_SET = `
if redis.call('GET', KEYS[2]) == ARGV[1] then
  if ARGV[3] then
    redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
  else
    redis.call('SET', KEYS[3], ARGV[2])
  end
  return 1
end
return 0`;

/**
 * Thread leases in Redis: one owner per thread at a time, for `ttlMs` after its last
 * acquire or renew. The fencing token comes from INCR, so it grows with every new owner and
 * anything guarded by a token can refuse an owner that lost its lease without knowing it.
 */
export class RedisThreadLeases {
  private readonly keys: CoordinationKeys;

  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
    keys: CoordinationKeys = coordinationKeys(),
  ) {
    this.keys = keys;
  }

  /** The lease for `owner`, or undefined while another instance holds the thread. */
  async acquire(threadKey: string, owner: string): Promise<ThreadLease | undefined> {
    const token = Number(await this.redis.eval(ACQUIRE, 2, this.keys.lease(threadKey), this.keys.fence(threadKey), owner, this.ttlMs));
    return token > 0 ? { threadKey, owner, token } : undefined;
  }

  /** Extends the lease by the TTL; false when it lapsed or has another owner now. */
  async renew(lease: ThreadLease): Promise<boolean> {
    const done = await this.redis.eval(RENEW, 2, this.keys.lease(lease.threadKey), this.keys.fence(lease.threadKey), lease.owner, this.ttlMs, lease.token);
    return Number(done) === 1;
  }

  /** Gives the thread up; false when the lease was no longer this owner's (nothing changed). */
  async release(lease: ThreadLease): Promise<boolean> {
    const done = await this.redis.eval(RELEASE, 2, this.keys.lease(lease.threadKey), this.keys.fence(lease.threadKey), lease.owner, lease.token);
    return Number(done) === 1;
  }

  /** The instance holding the thread now, or undefined when nobody does. */
  async owner(threadKey: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.lease(threadKey))) ?? undefined;
  }

  /** Whether `lease` carries the thread's newest token (no later owner has taken it). */
  async isCurrent(lease: ThreadLease): Promise<boolean> {
    return (await this.redis.get(this.keys.fence(lease.threadKey))) === String(lease.token);
  }

  /** Sets `key` to `value` (for `ttlMs` when given) only while `lease.token` is the thread's newest; false when refused. */
  async fencedSet(lease: ThreadLease, key: string, value: string, ttlMs?: number): Promise<boolean> {
    const extra = ttlMs === undefined ? [] : [Math.max(1, Math.round(ttlMs))];
    const done = await this.redis.eval(FENCED_SET, 3, this.keys.lease(lease.threadKey), this.keys.fence(lease.threadKey), key, String(lease.token), value, ...extra);
    return Number(done) === 1;
  }
}
