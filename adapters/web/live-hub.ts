import { LocalLiveHub, type LiveChannel as Channel, type LiveEvents, type LiveListener as Listener } from '../../src/coordination/index.js';
import type { LiveEvent } from './types.js';

/*
 * The web chat's side of the live hub whose contract is src/coordination's: one gateway uses
 * `LiveHub` (in process); several instances get a channel across them from the coordination,
 * which reads the events through `webLiveEvents`.
 */

export type LiveListener = Listener<LiveEvent>;
export type LiveChannel = Channel<LiveEvent>;

/** Fans a thread's live events out to the pages on this instance that watch it. */
export class LiveHub extends LocalLiveHub<LiveEvent> {}

const TYPES = new Set(['snapshot', 'entry', 'busy', 'deleted']);

/** A live event as another instance sent it: the type the page knows and the fields it reads. */
function isLiveEvent(value: unknown): value is LiveEvent {
  if (typeof value !== 'object' || value === null || !('type' in value) || typeof value.type !== 'string' || !TYPES.has(value.type)) return false;
  if (value.type === 'snapshot') return 'entries' in value && Array.isArray(value.entries) && 'busy' in value && typeof value.busy === 'boolean';
  if (value.type === 'entry') return 'entry' in value && typeof value.entry === 'object' && value.entry !== null;
  if (value.type === 'busy') return 'busy' in value && typeof value.busy === 'boolean';
  return true;
}

/** How a hub across instances reads the web chat's events: `busy` starts and ends a turn, `deleted` ends the thread. */
export const webLiveEvents: LiveEvents<LiveEvent> = {
  parse: (value) => (isLiveEvent(value) ? value : undefined),
  busy: (event) => (event.type === 'busy' ? event.busy : undefined),
  deleted: (event) => event.type === 'deleted',
  ended: { type: 'busy', busy: false },
};
