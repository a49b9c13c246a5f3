import { z } from 'zod';
import { threadRef, type ThreadRef } from '../../src/gateway/index.js';
import { isThreadId } from './transcript.js';
import type { WebReplyTarget } from './types.js';

/** `web:<thread id>` and the thread id itself, checked once here instead of in every send. */
const WEB_TARGET = z
  .object({ threadKey: z.string(), threadId: z.string().refine(isThreadId, 'not a web thread id') })
  .refine((target) => target.threadKey === webThreadKey(target.threadId), 'the thread key is not web:<thread id>');

/** The key of a web thread. */
export function webThreadKey(threadId: string): string {
  return `web:${threadId}`;
}

/** A web chat thread as the outbox keeps it and another instance passes it. */
export const WEB_THREAD: ThreadRef<WebReplyTarget> = threadRef<WebReplyTarget>(WEB_TARGET);
