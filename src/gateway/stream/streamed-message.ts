import type { PlatformAdapter, ReplyTarget, StreamedMessage } from '../types.js';
import { closeFences } from './fences.js';

const DEFAULT_EDIT_INTERVAL_MS = 1000;

/**
 * The message one part of a reply is streamed into, where the adapter has no stream of its
 * own: sent once, then edited in place at the adapter's `streaming.minEditIntervalMs`, its code block
 * closed at every edit; `finish` is the last edit (or the one send). Without `edit`, nothing
 * shows until `finish` sends the part.
 */
export function editedMessage<T extends ReplyTarget>(adapter: PlatformAdapter<T>, target: T, resume?: { messageId: string }): StreamedMessage {
  let messageId = resume?.messageId;
  let shown: string | undefined;
  const put = async (text: string): Promise<void> => {
    const body = closeFences(text);
    if (body === shown) return;
    if (messageId === undefined) messageId = (await adapter.send(target, body)).messageId;
    else await adapter.edit!(target, messageId, body);
    shown = body;
  };
  return {
    minIntervalMs: adapter.streaming?.minEditIntervalMs ?? DEFAULT_EDIT_INTERVAL_MS,
    get messageId() {
      return messageId;
    },
    async update(text) {
      if (adapter.edit) await put(text);
    },
    async finish(text) {
      await put(text);
      return { messageId: messageId! };
    },
  };
}

/** The adapter's own stream for a part (a draft, a platform's chat stream) where it has one, else `editedMessage`. */
export function openMessage<T extends ReplyTarget>(adapter: PlatformAdapter<T>, target: T, resume?: { messageId: string }): StreamedMessage {
  return adapter.streaming?.open?.(target, resume) ?? editedMessage(adapter, target, resume);
}
