import { setTimeout as sleep } from 'node:timers/promises';
import type { InboundMessage } from '../../src/gateway/index.js';

/** Polls `probe` until it gives a value (not undefined or false), or throws naming `what` after `ms`. */
export async function until<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${ms} ms`);
    await sleep(20);
  }
}

/** Ada's direct message `text` on Telegram in `threadKey` (its id is the text), answered to `replyTo`. */
export const adaMessage = (threadKey: string, text: string, replyTo: InboundMessage['replyTo'] = { threadKey }): InboundMessage => ({
  platform: 'telegram',
  threadKey,
  chat: { id: '1', type: 'dm' },
  user: { id: '1', name: 'Ada' },
  text,
  messageId: text,
  replyTo,
});
