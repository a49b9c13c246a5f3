import type { Redis } from 'ioredis';
import { errorMessage } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { coordinationKeys, type CoordinationKeys } from './keys.js';
import type { PassedEnvelope } from './types.js';

/** An envelope as one stream entry: one field holding its JSON. */
const FIELD = 'envelope';
/** Older entries are trimmed past this many (an inbox nobody reads, from an instance that died). */
const MAX_ENTRIES = 10_000;

/** Puts `envelope` at the end of instance `to`'s inbox (a Redis stream, so order is kept). */
export async function passTo(redis: Redis, to: string, envelope: PassedEnvelope, keys: CoordinationKeys = coordinationKeys()): Promise<void> {
  await redis.xadd(keys.inbox(to), 'MAXLEN', '~', MAX_ENTRIES, '*', FIELD, JSON.stringify(envelope));
}

/**
 * Takes the inbox of an instance that died: RENAME is atomic, so of several instances that
 * noticed, one gets the entries. Returns them in the order they were passed (none when
 * another instance took them first or there were none).
 */
export async function takeInbox(redis: Redis, from: string, keys: CoordinationKeys = coordinationKeys()): Promise<PassedEnvelope[]> {
  const taken = `${keys.adopted(from)}:${Date.now()}:${Math.random().toString(36).slice(2)}`;
  try {
    await redis.rename(keys.inbox(from), taken);
  } catch {
    return []; // no such key: nothing was waiting, or another instance has it
  }
  const entries = await redis.xrange(taken, '-', '+');
  await redis.del(taken);
  return entries.map(([, fields]) => parseEnvelope(fields)).filter((envelope): envelope is PassedEnvelope => envelope !== undefined);
}

function parseEnvelope(fields: string[]): PassedEnvelope | undefined {
  const at = fields.indexOf(FIELD);
  if (at < 0 || at % 2 !== 0) return undefined;
  try {
    const value: unknown = JSON.parse(fields[at + 1] ?? '');
    if (typeof value !== 'object' || value === null || !('kind' in value) || !('threadKey' in value)) return undefined;
    const kind = (value as { kind: unknown }).kind;
    return kind === 'message' || kind === 'interrupt' || kind === 'stop-job' ? (value as PassedEnvelope) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads this instance's inbox in order, one envelope at a time, on a connection of its own
 * (XREAD BLOCK holds it). Each entry is deleted once handled, so it is handled once.
 */
export class Inbox {
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(
    private readonly reader: Redis,
    private readonly instanceId: string,
    private readonly handle: (envelope: PassedEnvelope) => Promise<void>,
    private readonly logger: Logger = silentLogger(),
    private readonly keys: CoordinationKeys = coordinationKeys(),
  ) {
    this.loop = this.run();
  }

  /** Stops reading and ends the reader connection. */
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
          if (envelope) {
            try {
              await this.handle(envelope);
            } catch (error) {
              this.logger.error({ thread: envelope.threadKey, err: errorMessage(error) }, 'a passed message failed');
            }
          } else {
            this.logger.warn({ id }, 'an inbox entry that is not an envelope was dropped');
          }
          await this.reader.xdel(key, id).catch(() => undefined);
        }
      }
    }
  }
}
