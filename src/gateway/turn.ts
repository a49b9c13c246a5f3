import { randomUUID } from 'node:crypto';
import type { AgentEvent, AgentRunner, ApprovalRequest, TurnResult } from '../agent/types.js';
import type { Logger } from '../shared/logger.js';
import { ToolProgress, type ToolProgressMode } from './progress.js';
import { splitMessage } from './split.js';
import { sendReplyWithMedia, turnInput, type TurnFiles } from './turn-files.js';
import { sendFileFrom } from './file-send.js';
import type { InboundMessage, PlatformAdapter, ReplyTarget, TurnNotice } from './types.js';

const DEFAULT_TYPING_INTERVAL_MS = 4000;

export interface TurnDeps {
  agent: AgentRunner;
  adapter: PlatformAdapter;
  logger: Logger;
  toolProgress: ToolProgressMode;
  /** Files both ways (what people send, send_file, MEDIA: lines); absent when the agent has no environment. */
  files?: TurnFiles;
  /** Asks the thread's user to approve a command; absent means nobody can (denied). */
  requestApproval?: (replyTo: ReplyTarget, request: ApprovalRequest, signal: AbortSignal) => Promise<boolean>;
}

/**
 * Runs one agent turn for `messages` (the last one is answered; several are joined when they
 * piled up during a busy turn) and renders it: typing, tool progress, interim text, the
 * reply split to the platform's limit, or a short error.
 */
export async function runRenderedTurn(deps: TurnDeps, messages: InboundMessage[], signal: AbortSignal): Promise<TurnResult | undefined> {
  const { adapter, agent } = deps;
  const last = messages[messages.length - 1];
  const replyTo = last.replyTo;
  const logger = deps.logger.child({ thread: last.threadKey, platform: adapter.name });
  const progress = new ToolProgress(adapter, replyTo, deps.toolProgress, logger);
  const notice = (event: AgentEvent | TurnNotice) => {
    try {
      adapter.onAgentEvent?.(replyTo, event);
    } catch (error) {
      logger.warn({ err: error }, 'adapter failed to render an agent event');
    }
  };
  /** Interim texts are sent in order, one after another. */
  let sends: Promise<void> = Promise.resolve();
  const sendLater = (body: string) => {
    sends = sends.then(() => sendSplit(adapter, replyTo, body, logger));
  };

  const stopTyping = startTyping(adapter, replyTo, logger);
  // Files people sent are saved before the turn; a message of refused files only ends here.
  const input = await turnInput(deps.files, messages, sendLater, logger);
  if (!input) {
    stopTyping();
    await sends;
    return undefined;
  }
  notice({ type: 'turn_started' });
  let result: TurnResult | undefined;
  try {
    result = await agent.runTurn({
      sessionKey: last.threadKey,
      text: input.text,
      ...(input.images.length > 0 ? { images: input.images } : {}),
      sendFile: (request) => sendFileFrom(adapter, replyTo, request),
      signal,
      user: last.user,
      // Unless an adapter says only this machine's owner can write to it, anyone may have.
      audience: adapter.audience ?? 'others',
      onEvent: (event) => {
        notice(event);
        progress.onEvent(event);
        if (event.type === 'text' && !event.final && event.text.trim()) sendLater(event.text);
      },
      requestApproval: deps.requestApproval
        ? (request) => deps.requestApproval!(replyTo, request, signal)
        : undefined,
    });
  } catch (error) {
    const ref = randomUUID().slice(0, 8);
    logger.error({ err: error, ref }, 'the agent failed during a turn');
    if (!signal.aborted) {
      sendLater(`Sorry, something went wrong while answering (ref ${ref}). The details are in the gateway log.`);
    }
  } finally {
    stopTyping();
  }
  await progress.finish();
  // An interrupted turn says nothing: the user moved on (new message, /stop, /new, shutdown).
  const answer = result && result.status !== 'interrupted' ? result.text : '';
  if (answer.trim()) {
    sends = sends.then(() =>
      sendReplyWithMedia(answer, { adapter, replyTo, files: deps.files, sendText: (body) => sendSplit(adapter, replyTo, body, logger) }, logger),
    );
  }
  await sends;
  notice({ type: 'turn_finished', status: result?.status ?? 'error' });
  logger.info({ status: result?.status ?? 'error' }, 'turn finished');
  return result;
}

/** Sends `text` split to the adapter's limit; failures are logged, not thrown. */
export async function sendSplit(adapter: PlatformAdapter, replyTo: ReplyTarget, text: string, logger: Logger): Promise<void> {
  for (const chunk of splitMessage(text, adapter.maxMessageLength)) {
    try {
      await adapter.send(replyTo, chunk);
    } catch (error) {
      logger.error({ err: error, platform: adapter.name }, 'could not send a reply');
      return;
    }
  }
}

/** Shows "typing…" now and again every interval until the returned function is called. */
function startTyping(adapter: PlatformAdapter, replyTo: ReplyTarget, logger: Logger): () => void {
  if (!adapter.typing) return () => {};
  const typing = () => {
    adapter.typing?.(replyTo).catch((error: unknown) => logger.debug({ err: error }, 'typing indicator failed'));
  };
  typing();
  const timer = setInterval(typing, adapter.typingIntervalMs ?? DEFAULT_TYPING_INTERVAL_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}
