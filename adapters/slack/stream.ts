import { webApi, type App } from '@slack/bolt';

const { ErrorCode } = webApi;
type WebAPIPlatformError = webApi.WebAPIPlatformError;
type WebAPIRateLimitedError = webApi.WebAPIRateLimitedError;
import { editedMessage, type DeliveryVerdict, type PlatformAdapter, type StreamedMessage } from '../../src/gateway/index.js';
import type { SlackReplyTarget } from './inbound.js';

/** Slack asks for about one update a second per message. */
export const SLACK_STREAM_INTERVAL_MS = 1000;

/** Errors that say this workspace or conversation has no chat streams: reply by send and edit instead. */
const NO_STREAMS = new Set(['unknown_method', 'not_allowed', 'not_allowed_token_type', 'missing_scope', 'channel_type_not_supported', 'feature_not_enabled', 'method_deprecated', 'invalid_arguments']);

export interface StreamHost {
  client: () => App['client'];
  adapter: PlatformAdapter<SlackReplyTarget>;
  /** Called when Slack refuses chat streams: later replies send and edit. */
  refused(error: unknown): void;
}

/**
 * One part of a reply in a Slack thread as a chat stream: `chat.startStream` with the first
 * text, `chat.appendStream` with what was added since, `chat.stopStream` with the rest. The
 * stream is the answer's one message. When the final text is not a continuation of what was
 * streamed (a part cut at the limit), the stopped message is set to it with `chat.update`.
 * `resume` (a message an earlier run left streaming) is stopped and set the same way.
 */
export function chatStream(host: StreamHost, target: SlackReplyTarget, resume?: { messageId: string }): StreamedMessage {
  let ts = resume?.messageId;
  let appended = resume ? undefined : '';
  let fallback: StreamedMessage | undefined;
  const where = { channel: target.channel };
  const stop = async (markdown?: string) => {
    await host.client().chat.stopStream({ ...where, ts: ts!, ...(markdown ? { markdown_text: markdown } : {}) });
  };
  return {
    minIntervalMs: SLACK_STREAM_INTERVAL_MS,
    get messageId() {
      return fallback?.messageId ?? ts;
    },
    async update(text) {
      if (fallback) return fallback.update(text);
      if (appended === undefined) return;
      if (ts === undefined) {
        try {
          const started = await host.client().chat.startStream({
            ...where,
            thread_ts: target.threadTs!,
            markdown_text: text,
            ...(target.userId ? { recipient_user_id: target.userId } : {}),
            ...(target.teamId ? { recipient_team_id: target.teamId } : {}),
          });
          ts = String(started.ts);
          appended = text;
        } catch (error) {
          if (!NO_STREAMS.has(platformError(error) ?? '')) throw error;
          host.refused(error);
          fallback = editedMessage(host.adapter, target);
          await fallback.update(text);
        }
        return;
      }
      // Only what was added since goes: a stream is append-only.
      if (!text.startsWith(appended) || text.length === appended.length) return;
      await host.client().chat.appendStream({ ...where, ts, markdown_text: text.slice(appended.length) });
      appended = text;
    },
    async finish(text) {
      if (fallback) return fallback.finish(text);
      if (ts === undefined) return host.adapter.send(target, text);
      if (appended !== undefined && text.startsWith(appended)) {
        await stop(text.slice(appended.length));
      } else {
        await stop().catch(() => undefined);
        await host.adapter.edit!(target, ts, text);
      }
      appended = text;
      return { messageId: ts };
    },
  };
}

/** Slack's error code of a failed call (`not_allowed`, `ratelimited`…), if it is one. */
export function platformError(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const coded = error as Partial<WebAPIPlatformError>;
  return coded.code === ErrorCode.PlatformError ? coded.data?.error : undefined;
}

/** Rate limits after their Retry-After, network and HTTP failures again; a refusal by Slack is final. */
export function slackVerdict(error: unknown): DeliveryVerdict {
  if (typeof error !== 'object' || error === null) return { retry: true };
  const coded = error as Partial<WebAPIRateLimitedError> & { code?: string };
  if (coded.code === ErrorCode.RateLimitedError) return { retry: true, afterMs: (coded.retryAfter ?? 1) * 1000 };
  if (coded.code === ErrorCode.PlatformError) return { retry: platformError(error) === 'ratelimited' || platformError(error) === 'internal_error' };
  return { retry: true };
}
