import { z } from 'zod';
import type { Logger } from '../shared/logger.js';

/**
 * Where a reply goes. Every platform's target has the thread key (one session per key); the rest
 * is the platform's own (channel and thread, chat id…), plain data that survives JSON.
 */
export interface ReplyTarget {
  readonly threadKey: string;
}

/**
 * A thread's identity as its platform owns it (the model is the Chat SDK's
 * `encodeThreadId`/`decodeThreadId`): `encode` gives the text the outbox, jobs and approvals keep
 * in the database, `decode` reads a target back from that text or from another instance's
 * message, validated; anything else comes back undefined, never cast.
 */
export interface ThreadRef<Target extends ReplyTarget = ReplyTarget> {
  encode(target: Target): string;
  /** `data` is stored text (a string) or an already parsed value (a message passed through Redis). */
  decode(data: unknown): Target | undefined;
}

export interface ThreadRefOptions<Target extends ReplyTarget> {
  /** What of a target outlives the process (the database's copy); default all of it. */
  durable?: (target: Target) => Target;
}

/** A platform's `ThreadRef` from the zod schema of its reply target. */
export function threadRef<Target extends ReplyTarget>(schema: z.ZodType<Target>, options: ThreadRefOptions<Target> = {}): ThreadRef<Target> {
  return {
    encode: (target) => JSON.stringify(options.durable ? options.durable(target) : target),
    decode: (data) => {
      const parsed = schema.safeParse(typeof data === 'string' ? parseJson(data) : data);
      return parsed.success ? parsed.data : undefined;
    },
  };
}

/** A target with nothing but its key: a platform whose key says it all (tests, plain adapters). */
export const KEY_ONLY_THREAD_REF: ThreadRef = threadRef(z.object({ threadKey: z.string().min(1) }));

/**
 * A target coming back from the database or another instance through `ref`; one that does not
 * read is logged as an error (with where it came from) and comes back undefined.
 */
export function readThread<Target extends ReplyTarget>(
  ref: ThreadRef<Target>,
  data: unknown,
  context: { platform: string; from: string; logger: Logger },
): Target | undefined {
  const target = ref.decode(data);
  if (!target) context.logger.error({ platform: context.platform, from: context.from }, 'a thread reference that its platform cannot read was refused');
  return target;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
