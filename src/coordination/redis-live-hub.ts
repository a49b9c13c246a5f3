import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { errorMessage } from '../shared/errors.js';
import { readJson } from '../shared/read-json.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { DEFAULT_PREFIX } from './keys.js';
import { LocalLiveHub, type LiveChannel, type LiveEvents, type LiveListener } from './live-hub.js';
import { connectRedis } from './redis-connect.js';

export interface RedisLiveHubOptions<E> {
  url: string;
  /** The channel's name in Redis keys (`<prefix><channel>:live`, `:busy`, `:alive:<id>`). */
  channel: string;
  /** How the hub reads the platform's events. */
  events: LiveEvents<E>;
  /** How long a turn still counts as running on an instance that stopped renewing its heartbeat. */
  ttlMs: number;
  /** This instance's name on the channel; random when unset. */
  instanceId?: string;
  /** Key prefix, so several gateways (or tests) can share a Redis database. */
  prefix?: string;
  logger?: Logger;
}

/** What crosses the channel: the instance that published, the thread, the event. */
interface Carried<E> {
  from: string;
  thread: string;
  event: E;
}

/** Clears a thread's busy mark only while it is this instance's (a later owner's stays). */
const CLEAR_BUSY = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0`;

/**
 * A platform's live events (the web chat's) across instances behind one load balancer: each event goes to
 * this instance's pages at once (as with one gateway) and over one Redis pub/sub channel to
 * the other instances, which hand it to their pages. Which threads run a turn elsewhere is
 * learnt from the `busy` events and a Redis hash (for an instance that starts mid-turn); a
 * thread whose instance died stops counting once that instance's heartbeat lapses.
 */
export class RedisLiveHub<E> implements LiveChannel<E> {
  private readonly local = new LocalLiveHub<E>();
  readonly shared = true;
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
    private readonly events: LiveEvents<E>,
    names: { prefix: string; channel: string },
    logger: Logger,
  ) {
    const base = `${names.prefix}${names.channel}`;
    this.channel = `${base}:live`;
    this.busyKey = `${base}:busy`;
    this.aliveKey = (id) => `${base}:alive:${id}`;
    this.logger = logger.child({ component: 'live-hub', channel: names.channel, instance: instanceId });
  }

  /** Connects (one connection to publish, one subscribed), then reads which threads run a turn elsewhere. */
  static async connect<E>(options: RedisLiveHubOptions<E>): Promise<RedisLiveHub<E>> {
    const logger = options.logger ?? silentLogger();
    const user = `${options.channel} live events`;
    const redis = await connectRedis(options.url, logger, user, user);
    let subscriber: Redis;
    try {
      subscriber = await connectRedis(options.url, logger, `${user} (subscribed)`, user);
    } catch (error) {
      redis.disconnect();
      throw error;
    }
    const id = options.instanceId ?? `${options.channel}-${randomBytes(6).toString('hex')}`;
    const hub = new RedisLiveHub(redis, subscriber, id, options.ttlMs, options.events, { prefix: options.prefix ?? DEFAULT_PREFIX, channel: options.channel }, logger);
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

  subscribe(threadId: string, listener: LiveListener<E>): () => void {
    return this.local.subscribe(threadId, listener);
  }

  publish(threadId: string, event: E): void {
    this.local.publish(threadId, event);
    // Commands on one connection run in the order sent: the mark is set before the event is heard.
    const busy = this.events.busy(event);
    if (busy === true) {
      this.busyHere.add(threadId);
      this.send(this.redis.hset(this.busyKey, threadId, this.instanceId));
    } else if (busy === false) {
      this.busyHere.delete(threadId);
      this.send(this.redis.eval(CLEAR_BUSY, 1, this.busyKey, threadId, this.instanceId));
    }
    const carried: Carried<E> = { from: this.instanceId, thread: threadId, event };
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
    this.last = command.catch((error: unknown) => this.logger.warn({ err: errorMessage(error) }, 'a live event did not reach Redis; pages on other instances see it at their next reload'));
  }

  private receive(text: string): void {
    const carried = parseCarried(text, this.events);
    if (!carried) {
      this.logger.warn('a message on the live events channel that is not a live event was dropped');
      return;
    }
    if (carried.from === this.instanceId) return; // delivered here when published
    const { thread, event, from } = carried;
    this.heard?.add(thread);
    const busy = this.events.busy(event);
    if (busy === true) this.elsewhere.set(thread, from);
    // A turn that ended elsewhere: unless a later one started on yet another instance.
    else if ((busy === false || this.events.deleted(event)) && this.elsewhere.get(thread) === from) this.elsewhere.delete(thread);
    this.local.publish(thread, event);
  }

  private async beat(): Promise<void> {
    try {
      await this.redis.set(this.aliveKey(this.instanceId), '1', 'PX', this.ttlMs);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'live events heartbeat failed');
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
          this.local.publish(thread, this.events.ended);
          this.logger.warn({ thread, owner }, 'a turn with live events ended with its instance (its heartbeat lapsed)');
          await this.redis.eval(CLEAR_BUSY, 1, this.busyKey, thread, owner);
        }
      }
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'checking the instances running turns with live events failed');
    }
  }

  private async isAlive(id: string): Promise<boolean> {
    return (await this.redis.exists(this.aliveKey(id))) === 1;
  }
}

/** What one instance publishes on the channel; the event inside is read by the channel's own `events.parse`. */
const carried = z.object({ from: z.string(), thread: z.string(), event: z.unknown() });

function parseCarried<E>(text: string, events: LiveEvents<E>): Carried<E> | undefined {
  const parsed = readJson(carried, text);
  const event = parsed ? events.parse(parsed.event) : undefined;
  return parsed && event !== undefined ? { from: parsed.from, thread: parsed.thread, event } : undefined;
}
