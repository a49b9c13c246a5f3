import { LocalLiveHub, type LiveChannel as Channel, type LiveEvents, type LiveListener as Listener } from '../../src/coordination/index.js';
import { z } from 'zod';
import type { LiveEvent, WebEntry } from './types.js';

/*
 * The web chat's side of the live hub whose contract is src/coordination's: one gateway uses
 * `LiveHub` (in process); several instances get a channel across them from the coordination,
 * which reads the events through `webLiveEvents`.
 */

export type LiveListener = Listener<LiveEvent>;
export type LiveChannel = Channel<LiveEvent>;

/** Fans a thread's live events out to the pages on this instance that watch it. */
export class LiveHub extends LocalLiveHub<LiveEvent> {}

/*
 * What another instance sends is read, never trusted: each entry kind with the fields the page
 * reads (loose, so a field a newer instance adds passes through).
 */
const fileRef = z.object({ id: z.string(), name: z.string(), mimeType: z.string(), size: z.number() });
const base = { id: z.string(), at: z.number() };
const webEntry = z.discriminatedUnion('kind', [
  z.looseObject({ ...base, kind: z.literal('user'), text: z.string(), files: z.array(fileRef).optional() }),
  z.looseObject({ ...base, kind: z.literal('assistant'), text: z.string(), interim: z.boolean(), streaming: z.boolean().optional() }),
  z.looseObject({
    ...base,
    kind: z.literal('tool'),
    name: z.string(),
    status: z.enum(['running', 'success', 'error', 'timeout', 'interrupted']),
    code: z.string().optional(),
    args: z.string().optional(),
    output: z.string().optional(),
    error: z.string().optional(),
    durationMs: z.number().optional(),
  }),
  z.looseObject({ ...base, kind: z.literal('notice'), text: z.string(), tone: z.enum(['info', 'warning', 'error']) }),
  z.looseObject({ ...base, kind: z.literal('approval'), text: z.string(), state: z.enum(['waiting', 'settled']) }),
  z.looseObject({ ...base, kind: z.literal('file'), file: fileRef, url: z.string(), preview: z.boolean(), caption: z.string().optional() }),
]) satisfies z.ZodType<WebEntry>;

/** A live event as another instance sent it: the type the page knows and the fields it reads. */
const liveEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('snapshot'), entries: z.array(webEntry), busy: z.boolean() }),
  z.object({ type: z.literal('entry'), entry: webEntry }),
  z.object({ type: z.literal('busy'), busy: z.boolean() }),
  z.object({ type: z.literal('deleted') }),
]) satisfies z.ZodType<LiveEvent>;

/** How a hub across instances reads the web chat's events: `busy` starts and ends a turn, `deleted` ends the thread. */
export const webLiveEvents: LiveEvents<LiveEvent> = {
  parse: (value) => liveEvent.safeParse(value).data,
  busy: (event) => (event.type === 'busy' ? event.busy : undefined),
  deleted: (event) => event.type === 'deleted',
  ended: { type: 'busy', busy: false },
};
