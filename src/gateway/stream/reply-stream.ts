import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../shared/logger.js';
import type { OutboxStore } from '../outbox/store.js';
import { splitMessage } from '../split.js';
import type { StreamedMessage } from '../types.js';
import { cutPart, partText } from './cut.js';
import type { ThreadDelivery } from './delivery.js';

export interface ReplyStreamDeps {
  outbox: OutboxStore;
  /** The outbox turn the parts belong to. */
  turnId: string;
  delivery: ThreadDelivery;
  /** A fresh message for the next part (the adapter's stream, or send-and-edit). */
  open: () => StreamedMessage;
  /** The platform's message limit, in characters. */
  limit: number;
  logger: Logger;
  /** Called once, when the reply's first text is visible. */
  onVisible?: () => void;
}

interface LivePart {
  seq: number;
  message: StreamedMessage;
  /** The text the last update showed (or is showing). */
  shown: string;
  /** The update in flight, if any. */
  inflight: Promise<void>;
  busy: boolean;
  /** When the last update ended: the next waits `minIntervalMs` from here. */
  lastAt: number;
}

/**
 * One reply (an interim text or the answer) as the model writes it. Text is shown as it comes,
 * at most one update in flight and no faster than the message's `minIntervalMs`; once it
 * outgrows the platform's limit the part is cut at a line (its code block closed, reopened in
 * the next part) and finished once, and the rest goes on in the next message. Every part is in
 * the outbox before it is first sent; `finish` settles the last one with the final text.
 */
export class ReplyStream {
  /** Everything streamed so far (a retried request starts it again). */
  private raw = '';
  /** Where in `raw` the open part's body starts. */
  private offset = 0;
  /** The fence line the open part reopened, or ''. */
  private prefix = '';
  private open: LivePart | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private streamed = false;
  private visible = false;
  private readonly deliveries: Promise<void>[] = [];

  constructor(private readonly deps: ReplyStreamDeps) {}

  /** True once any text reached this reply. */
  get started(): boolean {
    return this.streamed;
  }

  /** Takes the next piece of text. */
  push(delta: string): void {
    if (this.closed || !delta) return;
    this.streamed = true;
    this.raw += delta;
    this.cutFinished();
    this.kick();
  }

  /** The request is being retried: its text comes again from the start (parts already finished stay). */
  restart(): void {
    if (this.closed) return;
    this.raw = '';
  }

  /**
   * Settles the reply with its final text and resolves once every part is delivered (or given
   * up, or left for after a restart). A reply that arrives whole is split with `(i/n)` markers.
   */
  async finish(text: string): Promise<void> {
    if (this.closed) return this.settled();
    this.closed = true;
    this.clearTimer();
    if (!this.streamed && !this.open) {
      if (text.trim()) this.sendWhole(text);
      return this.settled();
    }
    const before = this.raw.slice(0, this.offset);
    // The final text is what the model wrote, maybe with a note added; what is already finished stays.
    this.raw = text.startsWith(before) ? text : before + text;
    this.cutFinished();
    const last = partText({ prefix: this.prefix, body: this.raw.slice(this.offset) });
    const part = this.open;
    this.open = undefined;
    if (part) {
      if (last.trim()) this.finishPart(part, last);
      else await this.dropPart(part);
    } else if (last.trim()) {
      this.finishNew(last);
    }
    return this.settled();
  }

  /** The turn was interrupted: what is on screen stays as it is, a draft nobody kept goes. */
  async abandon(): Promise<void> {
    if (this.closed) return this.settled();
    this.closed = true;
    this.clearTimer();
    const part = this.open;
    this.open = undefined;
    if (part) {
      await part.inflight;
      if (part.message.messageId !== undefined) this.finishPart(part, part.shown);
      else await this.dropPart(part);
    }
    return this.settled();
  }

  private async settled(): Promise<void> {
    await Promise.all(this.deliveries);
  }

  private openText(): string {
    return partText({ prefix: this.prefix, body: this.raw.slice(this.offset) });
  }

  /** Finishes every part the text has outgrown. */
  private cutFinished(): void {
    for (;;) {
      const cut = cutPart({ prefix: this.prefix, body: this.raw.slice(this.offset) }, this.deps.limit);
      if (!cut) return;
      const part = this.open;
      this.open = undefined;
      this.clearTimer();
      if (part) this.finishPart(part, cut.head);
      else this.finishNew(cut.head);
      this.offset += cut.consumed;
      this.prefix = cut.prefix;
    }
  }

  private finishPart(part: LivePart, text: string): void {
    this.deps.outbox.finalize(part.seq, text);
    // The final text is one more update of the message: it keeps the same pace.
    const paced = part.inflight.then(() => sleep(Math.max(0, part.lastAt + part.message.minIntervalMs - Date.now())));
    this.deliveries.push(this.deps.delivery.deliver(part.seq, text, part.message, paced).then(() => this.seen()));
  }

  private finishNew(text: string): void {
    const seq = this.deps.outbox.addPart(this.deps.turnId, text, 'final');
    this.deliveries.push(this.deps.delivery.deliver(seq, text, this.deps.open()).then(() => this.seen()));
  }

  private sendWhole(text: string): void {
    const parts = splitMessage(text, this.deps.limit);
    const seqs = this.deps.outbox.transaction(() => parts.map((part) => this.deps.outbox.addPart(this.deps.turnId, part, 'final')));
    parts.forEach((part, i) => this.deliveries.push(this.deps.delivery.deliver(seqs[i], part, this.deps.open()).then(() => this.seen())));
  }

  private async dropPart(part: LivePart): Promise<void> {
    await part.inflight;
    if (part.message.messageId !== undefined) {
      // Something was sent: it stays, with what it showed.
      this.finishPart(part, part.shown);
      return;
    }
    await part.message.discard?.().catch((error: unknown) => this.deps.logger.debug({ err: error }, 'could not drop a draft'));
    this.deps.outbox.drop(part.seq);
  }

  private seen(): void {
    if (this.visible) return;
    this.visible = true;
    this.deps.onVisible?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Shows the latest text when the rate allows: the first update at once, later ones spaced. */
  private kick(): void {
    if (this.closed || this.timer) return;
    const text = this.openText();
    if (!text.trim()) return;
    const part = this.open;
    if (!part) {
      this.startPart(text);
      return;
    }
    if (part.busy || text === part.shown) return;
    const wait = part.lastAt + part.message.minIntervalMs - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.kick();
      }, wait);
      this.timer.unref?.();
      return;
    }
    this.update(part, text, false);
  }

  private startPart(text: string): void {
    // Written before it is first sent: a restart finds it, and finishes the message in place.
    const seq = this.deps.outbox.addPart(this.deps.turnId, text, 'open');
    const part: LivePart = { seq, message: this.deps.open(), shown: text, inflight: Promise.resolve(), busy: false, lastAt: 0 };
    this.open = part;
    this.update(part, text, true);
  }

  private update(part: LivePart, text: string, first: boolean): void {
    part.busy = true;
    part.shown = text;
    const show = () => part.message.update(text);
    // The first appearance waits its turn in the thread, so parts (and turns) arrive in order.
    const run = first ? this.deps.delivery.run(show) : show();
    part.inflight = run
      .then(
        () => {
          this.deps.outbox.shown(part.seq, part.message.messageId, text);
          this.seen();
        },
        (error: unknown) => this.deps.logger.warn({ err: error, seq: part.seq }, 'could not update a streamed reply; the next update tries again'),
      )
      .finally(() => {
        part.busy = false;
        part.lastAt = Date.now();
        if (this.open === part) this.kick();
      });
  }
}
