import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { LiveHub, type LiveChannel, type LiveEvent, type LiveListener } from '../../adapters/web/index.js';
import type { HermesConfig } from '../config/index.js';
import { HermesError, errorMessage } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { DEFAULT_PREFIX } from './keys.js';
import { redisUrlFrom } from './redis-url.js';

export interface RedisLiveHubOptions {
  url: string;
  /** How long a turn still counts as running on an instance that stopped renewing its heartbeat. */
  ttlMs: number;
  /** This instance's name on the channel; random when unset. */
  instanceId?: string;
  /** Key prefix, so several gateways (or tests) can share a Redis database. */
  prefix?: string;
  logger?: Logger;
}

/** What crosses the channel: the instance that published, the thread, the event. */
interface Carried {
  from: string;
  thread: string;
  event: LiveEvent;
}

/** Clears a thread's busy mark only while it is this instance's (a later owner's stays). */
const CLEAR_BUSY = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0`;

async function connected(url: string, logger: Logger, what: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  // Without a listener ioredis prints every reconnect error to the console.
  redis.on('error', (error: unknown) => logger.warn({ err: errorMessage(error), connection: what }, 'redis connection error'));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    // The URL may hold a password: name the host only.
    throw new HermesError(
      'COORDINATION_UNREACHABLE',
      `web chat: cannot reach Redis at ${new URL(url).host} for its live events (${errorMessage(error)}); check coordination.redis_url or REDIS_URL and that redis-server runs`,
      { cause: error },
    );
  }
  return redis;
}

/**
 * The web chat's live events across instances behind one load balancer: each event goes to
 * this instance's pages at once (as with one gateway) and over one Redis pub/sub channel to
 * the other instances, which hand it to their pages. Which threads run a turn elsewhere is
 * learnt from the `busy` events and a Redis hash (for an instance that starts mid-turn); a
 * thread whose instance died stops counting once that instance's heartbeat lapses.
 */
export class RedisLiveHub implements LiveChannel {
  private readonly local = new LiveHub();
  /** Threads running a turn on another instance → that instance. */
  private readonly elsewhere = new Map<string, string>();
  /** Threads running a turn here (cleared in Redis at close). */
  private readonly busyHere = new Set<string>();
  /** Threads heard of on the channel while the hash is read at start (it does not overrule them); undefined after. */
  private heard: Set<string> | undefined = new Set<string>();
  private last: Promise<unknown> = Promise.resolve();
  private timers: NodeJS.Timeout[] = [];
  private readonly channel: string;
  private readonly busyKey: string;
  private readonly aliveKey: (id: string) => string;
  private readonly logger: Logger;

  private constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    readonly instanceId: string,
    private readonly ttlMs: number,
    prefix: string,
    logger: Logger,
  ) {
    this.channel = `${prefix}web:live`;
    this.busyKey = `${prefix}web:busy`;
    this.aliveKey = (id) => `${prefix}web:alive:${id}`;
    this.logger = logger.child({ component: 'web-live-hub', instance: instanceId });
  }

  /** Connects (one connection to publish, one subscribed), then reads which threads run a turn elsewhere. */
  static async connect(options: RedisLiveHubOptions): Promise<RedisLiveHub> {
    const logger = options.logger ?? silentLogger();
    const redis = await connected(options.url, logger, 'web live events');
    let subscriber: Redis;
    try {
      subscriber = await connected(options.url, logger, 'web live events (subscribed)');
    } catch (error) {
      redis.disconnect();
      throw error;
    }
    const id = options.instanceId ?? `web-${randomBytes(6).toString('hex')}`;
    const hub = new RedisLiveHub(redis, subscriber, id, options.ttlMs, options.prefix ?? DEFAULT_PREFIX, logger);
    subscriber.on('message', (_channel: string, text: string) => hub.receive(text));
    try {
      await subscriber.subscribe(hub.channel);
      await hub.beat();
      await hub.readBusy();
    } catch (error) {
      redis.disconnect();
      subscriber.disconnect();
      throw error;
    }
    const beat = setInterval(() => void hub.beat(), Math.max(1, Math.floor(options.ttlMs / 3)));
    const sweep = setInterval(() => void hub.sweep(), Math.max(1, options.ttlMs));
    beat.unref();
    sweep.unref();
    hub.timers = [beat, sweep];
    return hub;
  }

  subscribe(threadId: string, listener: LiveListener): () => void {
    return this.local.subscribe(threadId, listener);
  }

  publish(threadId: string, event: LiveEvent): void {
    this.local.publish(threadId, event);
    // Commands on one connection run in the order sent: the mark is set before the event is heard.
    if (event.type === 'busy' && event.busy) {
      this.busyHere.add(threadId);
      this.send(this.redis.hset(this.busyKey, threadId, this.instanceId));
    } else if (event.type === 'busy') {
      this.busyHere.delete(threadId);
      this.send(this.redis.eval(CLEAR_BUSY, 1, this.busyKey, threadId, this.instanceId));
    }
    const carried: Carried = { from: this.instanceId, thread: threadId, event };
    this.send(this.redis.publish(this.channel, JSON.stringify(carried)));
  }

  busyElsewhere(threadId: string): boolean {
    return this.elsewhere.has(threadId);
  }

  /** Replies come in the order sent: once the last command is answered, all before it are. */
  async flushed(): Promise<void> {
    await this.last;
  }

  get size(): number {
    return this.local.size;
  }

  /** Stops the heartbeat, clears this instance's busy marks, and closes both connections. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    try {
      for (const threadId of this.busyHere) await this.redis.eval(CLEAR_BUSY, 1, this.busyKey, threadId, this.instanceId);
      await this.redis.del(this.aliveKey(this.instanceId));
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
    this.subscriber.disconnect();
  }

  private send(command: Promise<unknown>): void {
    this.last = command.catch((error: unknown) => this.logger.warn({ err: errorMessage(error) }, 'a web chat live event did not reach Redis; pages on other instances see it at their next reload'));
  }

  private receive(text: string): void {
    const carried = parseCarried(text);
    if (!carried) {
      this.logger.warn('a message on the web chat channel that is not a live event was dropped');
      return;
    }
    if (carried.from === this.instanceId) return; // delivered here when published
    const { thread, event, from } = carried;
    this.heard?.add(thread);
    if (event.type === 'busy' && event.busy) this.elsewhere.set(thread, from);
    // A turn that ended elsewhere: unless a later one started on yet another instance.
    else if ((event.type === 'busy' || event.type === 'deleted') && this.elsewhere.get(thread) === from) this.elsewhere.delete(thread);
    this.local.publish(thread, event);
  }

  private async beat(): Promise<void> {
    try {
      await this.redis.set(this.aliveKey(this.instanceId), '1', 'PX', this.ttlMs);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'web chat heartbeat failed');
    }
  }

  /** At start: the turns running elsewhere now, from the hash (an instance that died is skipped, and its marks cleared). */
  private async readBusy(): Promise<void> {
    const marks = await this.redis.hgetall(this.busyKey);
    for (const [thread, owner] of Object.entries(marks)) {
      if (owner === this.instanceId || this.heard?.has(thread)) continue;
      if (await this.isAlive(owner)) {
        if (!this.heard?.has(thread)) this.elsewhere.set(thread, owner);
      } else {
        await this.redis.eval(CLEAR_BUSY, 1, this.busyKey, thread, owner);
      }
    }
    this.heard = undefined;
  }

  /** A turn on an instance that died never ends by itself: once its heartbeat lapsed, the pages here hear it is over. */
  private async sweep(): Promise<void> {
    try {
      for (const owner of new Set(this.elsewhere.values())) {
        if (await this.isAlive(owner)) continue;
        for (const [thread, holder] of [...this.elsewhere]) {
          if (holder !== owner) continue;
          // The pages hear it as the state changes here, then the dead instance's mark goes.
          this.elsewhere.delete(thread);
          this.local.publish(thread, { type: 'busy', busy: false });
          this.logger.warn({ thread, owner }, 'a web chat turn ended with its instance (its heartbeat lapsed)');
          await this.redis.eval(CLEAR_BUSY, 1, this.busyKey, thread, owner);
        }
      }
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'checking the instances running web chat turns failed');
    }
  }

  private async isAlive(id: string): Promise<boolean> {
    return (await this.redis.exists(this.aliveKey(id))) === 1;
  }
}

function parseCarried(text: string): Carried | undefined {
  try {
    const value = JSON.parse(text) as Partial<Carried>;
    const type = (value.event as { type?: unknown } | undefined)?.type;
    if (typeof value.from !== 'string' || typeof value.thread !== 'string' || typeof type !== 'string') return undefined;
    return ['snapshot', 'entry', 'busy', 'deleted'].includes(type) ? (value as Carried) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `coordination.backend: redis` with the web chat on: this instance's live events channel,
 * joined with the others' on the same Redis (the thread leases' TTL bounds how long a dead
 * instance's turn still shows as running).
 */
export async function startWebLiveHub(config: HermesConfig, env: NodeJS.ProcessEnv, logger: Logger): Promise<RedisLiveHub> {
  return RedisLiveHub.connect({ url: redisUrlFrom(config, env), ttlMs: config.coordination.lease_seconds * 1000, logger });
}
