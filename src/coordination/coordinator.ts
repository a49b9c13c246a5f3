import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errorMessage } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { redisEventClaims, type EventClaims } from './event-claims.js';
import { adoptInboxes, Inbox, passTo } from './inbox.js';
import { RedisJobClaims } from './job-claims.js';
import { coordinationKeys, DEFAULT_PREFIX, type CoordinationKeys } from './keys.js';
import { LeaseKeeper } from './lease-keeper.js';
import { RedisThreadLeases } from './leases.js';
import { connectRedis } from './redis-connect.js';
import type { PassedEnvelope, ThreadLease } from './types.js';

/** How often, at most, an instance looks for dead instances' unread inboxes (sooner with a shorter lease). */
const SWEEP_MS = 1000;

/** What an instance does with what other instances pass to it. */
export interface CoordinatorHandlers {
  /** A message for a thread this instance owns, passed on by the instance that received it. */
  message(threadKey: string, payload: unknown, from: string): Promise<void>;
  /** A new message or /stop elsewhere: interrupt the thread's turn here. */
  interrupt(threadKey: string, reason: string, from: string): void | Promise<void>;
}

export interface RedisCoordinatorOptions {
  url: string;
  /** This instance's name in leases and inboxes; random when unset (a restart is a new owner). */
  instanceId?: string;
  leaseTtlMs: number;
  /** Key prefix, so several gateways (or tests) can share a Redis database. */
  prefix?: string;
  logger?: Logger;
}

/** DEL KEYS[1] only while it still holds ARGV[1]. */
const DELETE_IF = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/** Where an interrupt went. */
export type InterruptRoute = 'here' | 'passed' | 'nobody';

/**
 * One gateway instance's part in a group sharing threads through Redis: it holds thread
 * leases (one owner per thread), passes messages and interrupts for threads another instance
 * owns to that instance's inbox, and hands what reaches its own inbox to `handlers`.
 */
export class RedisCoordinator {
  readonly leases: RedisThreadLeases;
  private readonly keys: CoordinationKeys;
  private readonly prefix: string;
  private readonly logger: Logger;
  private inbox: Inbox | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;
  private claims: RedisJobClaims | undefined;

  private constructor(
    private readonly redis: Redis,
    readonly instanceId: string,
    private readonly leaseTtlMs: number,
    options: RedisCoordinatorOptions,
  ) {
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.keys = coordinationKeys(this.prefix);
    this.logger = (options.logger ?? silentLogger()).child({ instance: instanceId });
    this.leases = new RedisThreadLeases(redis, leaseTtlMs, this.keys);
  }

  /** Connects (one connection for commands, one for the inbox's blocking reads) and starts reading the inbox. */
  static async connect(options: RedisCoordinatorOptions, handlers: CoordinatorHandlers): Promise<RedisCoordinator> {
    const logger = options.logger ?? silentLogger();
    const instanceId = options.instanceId ?? `gw-${randomBytes(6).toString('hex')}`;
    const redis = await connectRedis(options.url, logger, 'commands');
    let reader: Redis;
    try {
      reader = await connectRedis(options.url, logger, 'inbox');
    } catch (error) {
      redis.disconnect();
      throw error;
    }
    const coordinator = new RedisCoordinator(redis, instanceId, options.leaseTtlMs, options);
    coordinator.inbox = new Inbox(reader, redis, instanceId, (envelope) => coordinator.deliver(envelope, handlers), coordinator.logger, coordinator.keys);
    await coordinator.beat();
    coordinator.heartbeat = setInterval(() => void coordinator.beat(), Math.max(1, Math.floor(options.leaseTtlMs / 3)));
    coordinator.heartbeat.unref();
    // What was passed to an instance that died unread comes here (or to another live instance) once its heartbeat lapses.
    coordinator.sweeper = setInterval(() => void coordinator.sweep(), Math.max(1, Math.min(SWEEP_MS, Math.floor(options.leaseTtlMs / 3))));
    coordinator.sweeper.unref();
    return coordinator;
  }

  /**
   * Takes the thread's lease and keeps renewing it until released; undefined while another
   * instance holds it. `onLost` runs if the lease is lost anyway (this instance stalled past its TTL).
   */
  async hold(threadKey: string, onLost: (lease: ThreadLease) => void): Promise<LeaseKeeper | undefined> {
    const lease = await this.leases.acquire(threadKey, this.instanceId);
    return lease ? new LeaseKeeper(this.leases, lease, this.leaseTtlMs, onLost, this.logger) : undefined;
  }

  /** Claims on scheduled job runs, made on this instance's connection; each lasts `ttlMs`. */
  jobClaims(ttlMs: number): RedisJobClaims {
    this.claims = new RedisJobClaims(this.redis, this.instanceId, ttlMs, this.keys);
    return this.claims;
  }

  /** Claims on platform events, made on this instance's connection. */
  eventClaims(claimMs?: number): EventClaims {
    return redisEventClaims(this.redis, { prefix: this.prefix, logger: this.logger, ...(claimMs === undefined ? {} : { claimMs }) });
  }

  /** Records that this instance's session kernel holds the thread's state now (refused once `lease` is stale). */
  async recordKernel(lease: ThreadLease, ttlMs: number): Promise<boolean> {
    return this.leases.fencedSet(lease, this.keys.kernel(lease.threadKey), this.instanceId, ttlMs);
  }

  /**
   * Whether the thread's state was in another instance's kernel, which this instance cannot
   * reach: true once (the record is taken, so of several instances asking one hears it).
   */
  async kernelMoved(threadKey: string): Promise<boolean> {
    const owner = await this.redis.get(this.keys.kernel(threadKey));
    if (!owner || owner === this.instanceId) return false;
    return Number(await this.redis.eval(DELETE_IF, 1, this.keys.kernel(threadKey), owner)) === 1;
  }

  /** Marks (or unmarks) this instance as sending replies in the thread outside its lease. */
  async markSending(threadKey: string, on: boolean): Promise<void> {
    if (on) await this.redis.sadd(this.keys.sending(threadKey), this.instanceId);
    else await this.redis.srem(this.keys.sending(threadKey), this.instanceId);
  }

  /** Whether another live instance is sending replies in the thread outside its lease. */
  async othersSending(threadKey: string): Promise<boolean> {
    const senders = await this.redis.smembers(this.keys.sending(threadKey));
    for (const sender of senders) if (sender !== this.instanceId && (await this.isAlive(sender))) return true;
    return false;
  }

  /** The thread starts over (/new): no kernel holds state of it any more. */
  async forgetKernel(threadKey: string): Promise<void> {
    await this.redis.del(this.keys.kernel(threadKey));
  }

  /** How long a lease lasts without renewals. */
  get leaseMs(): number {
    return this.leaseTtlMs;
  }

  /** Whether instance `id` still runs (its heartbeat, kept like a lease, has not lapsed). */
  async isAlive(id: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.alive(id))) === 1;
  }

  /**
   * What was passed to instance `id` and never read, moved to the end of this instance's inbox in
   * order, when `id` is dead (its heartbeat lapsed): this instance's reader handles it next, once.
   * Returns how many envelopes moved (none while `id` lives, or when another instance took them first).
   */
  async takeOver(id: string): Promise<number> {
    return adoptInboxes(this.redis, this.instanceId, this.keys, id);
  }

  /** Passes a message for `threadKey` to the end of this instance's own inbox (after what it took over). */
  async passToSelf(threadKey: string, payload: unknown): Promise<void> {
    await this.passMessage(this.instanceId, threadKey, payload);
  }

  /** Passes a message for `threadKey` to instance `to`'s inbox. */
  async passMessage(to: string, threadKey: string, payload: unknown): Promise<void> {
    await passTo(this.redis, to, { kind: 'message', threadKey, from: this.instanceId, payload }, this.keys);
  }

  /**
   * Interrupts the thread's turn wherever it runs: here (`handlers.interrupt` is not called for
   * it; the caller interrupts its own lane), passed to the owner, or nowhere when no instance holds it.
   */
  async interrupt(threadKey: string, reason: string): Promise<InterruptRoute> {
    const owner = await this.leases.owner(threadKey);
    if (!owner) return 'nobody';
    if (owner === this.instanceId) return 'here';
    await passTo(this.redis, owner, { kind: 'interrupt', threadKey, from: this.instanceId, reason }, this.keys);
    return 'passed';
  }

  /** Stops reading the inbox, removes it and closes both connections. */
  async close(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.sweeper) clearInterval(this.sweeper);
    await this.inbox?.close();
    try {
      await this.redis.del(this.keys.inbox(this.instanceId), this.keys.alive(this.instanceId));
      await this.redis.srem(this.keys.inboxes, this.instanceId);
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  private async beat(): Promise<void> {
    try {
      await this.redis.set(this.keys.alive(this.instanceId), '1', 'PX', this.leaseTtlMs);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'instance heartbeat failed');
    }
  }

  /** Takes over the unread inboxes of instances whose heartbeat lapsed (one sweep at a time). */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const moved = await adoptInboxes(this.redis, this.instanceId, this.keys);
      if (moved > 0) this.logger.warn({ messages: moved }, 'took over the messages passed to an instance that died before reading them');
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'looking for the inboxes of instances that died failed');
    } finally {
      this.sweeping = false;
    }
  }

  private async deliver(envelope: PassedEnvelope, handlers: CoordinatorHandlers): Promise<void> {
    if (envelope.kind === 'interrupt') await handlers.interrupt(envelope.threadKey, envelope.reason, envelope.from);
    else if (envelope.kind === 'stop-job') this.claims?.stopHere(envelope.jobId, envelope.reason);
    else await handlers.message(envelope.threadKey, envelope.payload, envelope.from);
  }
}
