import type { Logger } from '../../shared/logger.js';
import type { OutboxKind, OutboxStore } from '../outbox/store.js';
import type { PlatformAdapter, ReplyTarget } from '../types.js';
import type { ThreadDelivery } from './delivery.js';
import { ReplyStream } from './reply-stream.js';
import { openMessage } from './streamed-message.js';

/**
 * What goes to one thread through one adapter: turns and single replies, each part in the
 * outbox before it is sent, in the thread's delivery order.
 */
export class ThreadReplies {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly delivery: ThreadDelivery,
    private readonly adapter: PlatformAdapter,
    private readonly target: ReplyTarget,
    private readonly logger: Logger,
  ) {}

  /** Records a turn answering `input` before anything of it is sent; returns its outbox id. */
  beginTurn(input: string, kind: OutboxKind = 'turn'): string {
    return this.outbox.beginTurn({
      kind,
      platform: this.adapter.name,
      threadKey: this.target.threadKey,
      target: this.adapter.thread.encode(this.target),
      input,
    });
  }

  /** The turn's outcome; from here a restart delivers what is left instead of calling it cut off. */
  finishTurn(turnId: string, status: string): void {
    this.outbox.finishTurn(turnId, status);
  }

  /** A reply of turn `turnId` that streams as it is written. */
  stream(turnId: string, onVisible?: () => void): ReplyStream {
    return new ReplyStream({
      outbox: this.outbox,
      turnId,
      delivery: this.delivery,
      open: () => openMessage(this.adapter, this.target),
      limit: this.adapter.maxMessageLength,
      logger: this.logger,
      onVisible,
    });
  }

  /** Sends a whole text (a command's answer, a notice) as its own outbox entry; resolves once delivered. */
  async say(text: string): Promise<void> {
    if (!text.trim()) return;
    const turnId = this.beginTurn('', 'reply');
    const stream = this.stream(turnId);
    const done = stream.finish(text);
    this.finishTurn(turnId, 'completed');
    await done;
  }
}
