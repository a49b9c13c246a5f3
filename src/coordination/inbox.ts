import type { Redis } from 'ioredis';
import { z } from 'zod';
import { errorMessage } from '../shared/errors.js';
import { readJson } from '../shared/read-json.js';
import { KeyedQueue } from '../shared/keyed-queue.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { coordinationKeys, type CoordinationKeys } from './keys.js';
import type { PassedEnvelope } from './types.js';

/** An envelope as one stream entry: one field holding its JSON. */
const FIELD = 'envelope';
/** Older entries are trimmed past this many (an inbox nobody reads, from an instance that died). */
const MAX_ENTRIES = 10_000;

/** XADD to the inbox and SADD its owner to the set of inboxes, in one step: no inbox exists that the sweep cannot find. */
const PASS = `
redis.call('SADD', KEYS[2], ARGV[1])
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', ARGV[3], ARGV[4])`;

/**
 * Moves the inboxes of dead instances (no heartbeat) into KEYS[2] (the caller's inbox), in order,
 * and forgets empty ones, in one step: of several instances sweeping at once, one moves each
 * entry. KEYS[1] is the set of inboxes; ARGV[1] the caller, ARGV[2] and ARGV[3] the inbox and
 * heartbeat key prefixes, ARGV[4] the trim length, ARGV[5] one dead instance to look at only ('' for all).
 * Returns how many entries it moved.
 */
const ADOPT = `
local members
if ARGV[5] ~= '' then members = { ARGV[5] } else members = redis.call('SMEMBERS', KEYS[1]) end
local moved = 0
for _, id in ipairs(members) do
  if id ~= ARGV[1] and redis.call('EXISTS', ARGV[3] .. id) == 0 then
    local inbox = ARGV[2] .. id
    for _, entry in ipairs(redis.call('XRANGE', inbox, '-', '+')) do
      redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', unpack(entry[2]))
      moved = moved + 1
    end
    redis.call('DEL', inbox)
    redis.call('SREM', KEYS[1], id)
  end
end
if moved > 0 then redis.call('SADD', KEYS[1], ARGV[1]) end
return moved`;

/** Puts `envelope` at the end of instance `to`'s inbox (a Redis stream, so order is kept). */
export async function passTo(redis: Redis, to: string, envelope: PassedEnvelope, keys: CoordinationKeys = coordinationKeys()): Promise<void> {
  await redis.eval(PASS, 2, keys.inbox(to), keys.inboxes, to, MAX_ENTRIES, FIELD, JSON.stringify(envelope));
}

/**
 * Takes over what was passed to instances that died before reading it: their inboxes' entries
 * are appended to instance `to`'s inbox, in the order they were passed, where its reader handles
 * them like any passed message (a thread's message is claimed there, after the dead owner's
 * lease lapses, or passed on to the thread's live owner). Only `dead` when given, else every
 * instance in the set of inboxes whose heartbeat lapsed. A live instance's inbox is never
 * touched, and an entry moves once however many instances sweep. Returns how many moved.
 */
export async function adoptInboxes(redis: Redis, to: string, keys: CoordinationKeys = coordinationKeys(), dead = ''): Promise<number> {
  const moved = await redis.eval(ADOPT, 2, keys.inboxes, keys.inbox(to), to, keys.inbox(''), keys.alive(''), MAX_ENTRIES, dead);
  return Number(moved);
}

/** An envelope as another instance wrote it; what is not one of these is dropped, never cast. */
const envelopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('message'), threadKey: z.string(), from: z.string(), payload: z.unknown() }),
  z.object({ kind: z.literal('interrupt'), threadKey: z.string(), from: z.string(), reason: z.string() }),
  z.object({ kind: z.literal('stop-job'), threadKey: z.string(), from: z.string(), jobId: z.string(), reason: z.string() }),
]) satisfies z.ZodType<PassedEnvelope>;

function parseEnvelope(fields: string[]): PassedEnvelope | undefined {
  const at = fields.indexOf(FIELD);
  if (at < 0 || at % 2 !== 0) return undefined;
  return readJson(envelopeSchema, fields[at + 1] ?? '');
}

/**
 * Reads this instance's inbox on a connection of its own (XREAD BLOCK holds it). Each thread's
 * envelopes are handled one at a time in the order they were passed, and threads apart from one
 * another, so a thread that waits (its dead owner's lease has yet to lapse) holds up no other.
 * Each entry is deleted, on the command connection, once handled, so it is handled once; one
 * still waiting here when this instance dies is taken over with the rest of its inbox.
 */
export class Inbox {
  private stopped = false;
  private readonly loop: Promise<void>;
  /** Each thread's envelopes, one at a time (the next one of a thread waits for the one before). */
  private readonly threads = new KeyedQueue();

  constructor(
    private readonly reader: Redis,
    /** The connection the entries are deleted on: the reader is held by its blocking read. */
    private readonly writer: Redis,
    private readonly instanceId: string,
    private readonly handle: (envelope: PassedEnvelope) => Promise<void>,
    private readonly logger: Logger = silentLogger(),
    private readonly keys: CoordinationKeys = coordinationKeys(),
  ) {
    this.loop = this.run();
  }

  /** Stops reading and ends the reader connection (envelopes being handled finish on their own). */
  async close(): Promise<void> {
    this.stopped = true;
    this.reader.disconnect();
    await this.loop;
  }

  private async run(): Promise<void> {
    const key = this.keys.inbox(this.instanceId);
    let last = '0';
    while (!this.stopped) {
      let batch: Array<[string, Array<[string, string[]]>]> | null;
      try {
        batch = await this.reader.xread('COUNT', 100, 'BLOCK', 0, 'STREAMS', key, last);
      } catch (error) {
        if (this.stopped) return;
        this.logger.warn({ err: errorMessage(error) }, 'reading the instance inbox failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      for (const [, entries] of batch ?? []) {
        for (const [id, fields] of entries) {
          last = id;
          const envelope = parseEnvelope(fields);
          if (envelope) this.inOrder(envelope.threadKey, () => this.deliver(key, id, envelope));
          else {
            this.logger.warn({ id }, 'an inbox entry that is not an envelope was dropped');
            await this.writer.xdel(key, id).catch(() => undefined);
          }
        }
      }
    }
  }

  /** Runs `work` after the thread's earlier envelopes (`deliver` never rejects). */
  private inOrder(threadKey: string, work: () => Promise<void>): void {
    void this.threads.run(threadKey, work);
  }

  private async deliver(key: string, id: string, envelope: PassedEnvelope): Promise<void> {
    try {
      await this.handle(envelope);
    } catch (error) {
      this.logger.error({ thread: envelope.threadKey, err: errorMessage(error) }, 'a passed message failed');
    }
    await this.writer.xdel(key, id).catch(() => undefined);
  }
}
