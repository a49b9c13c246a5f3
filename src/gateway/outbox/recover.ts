import type { Logger } from '../../shared/logger.js';
import type { ThreadDelivery } from '../stream/delivery.js';
import type { ThreadReplies } from '../stream/replies.js';
import { openMessage } from '../stream/streamed-message.js';
import type { PlatformAdapter, ReplyTarget } from '../types.js';
import { readThread } from '../thread-ref.js';
import type { OutboxStore, OutboxTurn } from './store.js';

export interface RecoverDeps {
  outbox: OutboxStore;
  adapters: ReadonlyMap<string, PlatformAdapter>;
  replies: (adapter: PlatformAdapter, target: ReplyTarget) => ThreadReplies;
  delivery: (adapter: PlatformAdapter, threadKey: string) => ThreadDelivery;
  logger: Logger;
  /**
   * Takes a thread before its replies are resumed, giving back the function that lets it go;
   * undefined while another live instance holds the thread (it is sending them).
   */
  take: (threadKey: string) => Promise<(() => void) | undefined>;
}

const PREVIEW_CHARS = 80;

/** What a thread is told when a restart cut its turn off. */
export function cutOffNotice(input: string): string {
  const line = input.replace(/\s+/g, ' ').trim();
  const preview = line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
  return `⚠️ The gateway restarted before I finished answering “${preview}”, so that answer is incomplete. Send /retry (or !retry) to ask again.`;
}

/**
 * Takes up what an earlier run left in the outbox: final parts not yet confirmed are
 * delivered (a part whose message exists is finished in place, never sent again), a streamed
 * part of a cut-off turn is finished as it stood, and the thread of a turn the restart cut
 * off is told so and offered /retry. Resolves once all of it is delivered.
 */
export async function recoverOutbox(deps: RecoverDeps): Promise<void> {
  const { outbox, logger } = deps;
  const pruned = outbox.prune();
  if (pruned > 0) logger.debug({ pruned }, 'outbox: old delivered turns pruned');
  const threads = new Map<string, Array<() => Promise<void>>>();
  let turns = 0;
  for (const turn of outbox.unfinished()) {
    const adapter = deps.adapters.get(turn.platform);
    // A platform not running now keeps its replies for a later start.
    if (!adapter) continue;
    const target = readThread(adapter.thread, turn.target, { platform: turn.platform, from: `outbox turn ${turn.id}`, logger });
    // Its parts are left undelivered.
    if (!target) continue;
    const thread = threads.get(target.threadKey) ?? [];
    thread.push(() => takeUp(deps, adapter, target, turn));
    threads.set(target.threadKey, thread);
    turns += 1;
  }
  if (turns > 0) logger.info({ turns }, 'outbox: delivering what the last run left');
  await Promise.all([...threads].map(([threadKey, work]) => resumeThread(deps, threadKey, work)));
}

/** One thread's leftovers, once this instance has the thread (with one instance, at once). */
async function resumeThread(deps: RecoverDeps, threadKey: string, work: Array<() => Promise<void>>): Promise<void> {
  const release = await deps.take(threadKey);
  if (!release) {
    deps.logger.info({ thread: threadKey }, 'outbox: another running instance holds this thread; its unsent replies are left to it');
    return;
  }
  try {
    await Promise.all(work.map((resume) => resume()));
  } finally {
    release();
  }
}

async function takeUp(deps: RecoverDeps, adapter: PlatformAdapter, target: ReplyTarget, turn: OutboxTurn): Promise<void> {
  const { outbox } = deps;
  const delivery = deps.delivery(adapter, target.threadKey);
  const jobs: Promise<void>[] = [];
  for (const part of outbox.parts(turn.id)) {
    const resume = part.messageId ? { messageId: part.messageId } : undefined;
    if (part.state === 'open') {
      // Streamed when the gateway stopped: its message stays as it stood; a draft is gone.
      if (!resume) {
        outbox.drop(part.seq);
        continue;
      }
      outbox.finalize(part.seq, part.text);
    } else if (part.state !== 'final') {
      continue;
    }
    jobs.push(delivery.deliver(part.seq, part.text, openMessage(adapter, target, resume)));
  }
  if (turn.state === 'running') {
    outbox.setState(turn.id, 'cut_off');
    if (turn.kind === 'turn') jobs.push(deps.replies(adapter, target).say(cutOffNotice(turn.input)));
  }
  await Promise.all(jobs);
}
