import type { InboundMessage, MessageHandler, ReplyTarget } from '../../src/gateway/types.js';

/** A MessageHandler for adapter tests: records every InboundMessage (with the adapter's own target type) and lets a test wait for the n-th. */
export interface RecordingHandler<Target extends ReplyTarget = ReplyTarget> {
  handler: MessageHandler<Target>;
  messages: InboundMessage<Target>[];
  /** Resolves with the n-th message (1-based) once it has arrived. */
  nth(n: number, timeoutMs?: number): Promise<InboundMessage<Target>>;
}

export function recordingHandler<Target extends ReplyTarget = ReplyTarget>(
  onMessage?: (message: InboundMessage<Target>) => Promise<void> | void,
): RecordingHandler<Target> {
  const messages: InboundMessage<Target>[] = [];
  const waiters: Array<() => void> = [];
  return {
    messages,
    handler: async (message) => {
      messages.push(message);
      waiters.splice(0).forEach((wake) => wake());
      await onMessage?.(message);
    },
    nth(n, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${messages.length} message(s) arrived, waited for ${n}: ${JSON.stringify(messages.map((m) => m.text))}`)),
          timeoutMs,
        );
        const check = (): void => {
          if (messages.length >= n) {
            clearTimeout(timer);
            resolve(messages[n - 1]);
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}
