import { randomUUID } from 'node:crypto';
import type { AgentEvent, AgentRunner, ApprovalRequest, TurnResult } from '../agent/types.js';
import type { Logger } from '../shared/logger.js';
import { ToolProgress, type ToolProgressMode } from './progress.js';
import { splitMessage } from './split.js';
import { sendReplyWithMedia, turnInput, type TurnFiles } from './turn-files.js';
import { sendFileFrom } from './file-send.js';
import type { ReplyStream } from './stream/reply-stream.js';
import type { ThreadReplies } from './stream/replies.js';
import { sendSpokenAnswer, type VoiceOut } from './voice-reply.js';
import type { InboundMessage, PlatformAdapter, ReplyTarget, TurnNotice, TurnReaction } from './types.js';

const DEFAULT_TYPING_INTERVAL_MS = 4000;

export interface TurnDeps {
  agent: AgentRunner;
  adapter: PlatformAdapter;
  logger: Logger;
  toolProgress: ToolProgressMode;
  /** The thread's replies: streamed, in the outbox before they are sent, in order. */
  replies: ThreadReplies;
  /** `display.reactions`: 👀 on the message while the turn runs, then ✅ or ❌. */
  reactions?: boolean;
  /** Files both ways (what people send, send_file, MEDIA: lines); absent when the agent has no environment. */
  files?: TurnFiles;
  /** Asks the thread's user to approve a command; absent means nobody can (denied). */
  requestApproval?: (replyTo: ReplyTarget, request: ApprovalRequest, signal: AbortSignal) => Promise<boolean>;
  /** Hears when the answer's first text is visible (the bench measures from the first token). */
  onFirstVisible?: () => void;
  /** Texts people sent while the turn runs (`busy_input_mode: steer`), for the agent to take at its next tool-call boundary. */
  steer?: () => string[];
  /** System notes for the model this turn (src/agent puts them before the person's text). */
  notes?: string[];
  /** Hears every agent event of the turn (several instances: where execute_code ran). */
  onEvent?: (event: AgentEvent) => void;
  /** The thread's `/voice on | only`: the answer also, or only, goes as a voice note. */
  voice?: VoiceOut;
}

/**
 * Runs one agent turn for `messages` (the last one is answered; several are joined when they
 * piled up during a busy turn) and renders it: typing, tool progress, each reply streamed as
 * the model writes it and finished in place, or a short error. Resolves once every part is
 * delivered (a new message does not cut a delivery short; the turn's signal only stops the agent).
 */
export async function runRenderedTurn(deps: TurnDeps, messages: InboundMessage[], signal: AbortSignal): Promise<TurnResult | undefined> {
  const { adapter, agent, replies } = deps;
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
  const react = (reaction: TurnReaction) => {
    const presence = adapter.presence;
    if (!deps.reactions || !presence?.react) return;
    presence.react(replyTo, reaction).catch((error: unknown) => logger.debug({ err: error, reaction }, 'could not set the reaction'));
  };
  /** Texts that are not the agent's (refused files, errors), sent in order. */
  const says: Promise<void>[] = [];
  const say = (text: string) => void says.push(replies.say(text));

  const stopTyping = startTyping(adapter, replyTo, logger);
  // Files people sent are saved before the turn; a message of refused files only ends here.
  const input = await turnInput(deps.files, messages, say, logger);
  if (!input) {
    stopTyping();
    await Promise.all(says);
    return undefined;
  }
  const turnId = replies.beginTurn(input.text);
  react('working');
  notice({ type: 'turn_started' });
  /** The reply the model is writing now, if its text has started. */
  let current: ReplyStream | undefined;
  /** The answer's stream, once the model ended with it. */
  let answer: ReplyStream | undefined;
  const finishing: Promise<void>[] = [];
  let firstVisible = false;
  const visible = () => {
    if (firstVisible) return;
    firstVisible = true;
    deps.onFirstVisible?.();
  };
  const stream = () => replies.stream(turnId, visible);
  let result: TurnResult | undefined;
  try {
    result = await agent.runTurn({
      sessionKey: last.threadKey,
      text: input.text,
      ...(input.images.length > 0 ? { images: input.images } : {}),
      sendFile: (request) => sendFileFrom(adapter, replyTo, request),
      signal,
      // The platform is the account the sender's memory is kept under.
      user: { ...last.user, platform: last.platform },
      // Unless an adapter says only this machine's owner can write to it, anyone may have.
      audience: adapter.audience ?? 'others',
      ...(deps.steer ? { steer: deps.steer } : {}),
      ...(deps.notes?.length ? { notes: deps.notes } : {}),
      // platforms.<name>.channels.<id>: the chat's own model and system prompt.
      channel: { platform: last.platform, id: last.chat.id },
      onEvent: (event) => {
        deps.onEvent?.(event);
        notice(event);
        progress.onEvent(event);
        if (event.type === 'text_delta') {
          // `/voice only`: the answer is not written while it is made (it is spoken at the end).
          if (deps.voice?.mode === 'only') return;
          if (event.restart) current?.restart();
          else (current ??= stream()).push(event.delta);
        } else if (event.type === 'text') {
          const reply = current ?? stream();
          current = undefined;
          if (event.final) answer = reply;
          else if (event.text.trim()) finishing.push(reply.finish(event.text));
          else finishing.push(reply.abandon());
        }
      },
      requestApproval: deps.requestApproval
        ? (request) => deps.requestApproval!(replyTo, request, signal)
        : undefined,
    });
  } catch (error) {
    const ref = randomUUID().slice(0, 8);
    logger.error({ err: error, ref }, 'the agent failed during a turn');
    if (!signal.aborted) say(`Sorry, something went wrong while answering (ref ${ref}). The details are in the gateway log.`);
  } finally {
    stopTyping();
  }
  await progress.finish();
  const status = result?.status ?? 'error';
  // What the model was still writing when it stopped stays as it is on screen.
  if (current) finishing.push(current.abandon());
  // An interrupted turn says nothing more: the user moved on (new message, /stop, /new, shutdown).
  const text = result && result.status !== 'interrupted' ? result.text : '';
  if (text.trim()) {
    const voice = deps.voice;
    const written = (onlyNotes: boolean) => {
      let first: ReplyStream | undefined = onlyNotes ? undefined : (answer ?? stream());
      let skip = onlyNotes;
      return sendReplyWithMedia(text, {
        adapter,
        replyTo,
        files: deps.files,
        // The answer's text finishes the message it streamed into; later notes are their own.
        sendText: (body) => {
          // Spoken only: the answer's text is the voice note; notes after it are still written.
          if (skip) {
            skip = false;
            return Promise.resolve();
          }
          const reply = first ?? stream();
          first = undefined;
          return reply.finish(body);
        },
      }, logger);
    };
    const speak = async () => {
      const failed = await sendSpokenAnswer(adapter, replyTo, text, voice!, logger);
      if (failed) await replies.say(`(No voice note: ${failed}.)`);
      return failed;
    };
    if (!voice) finishing.push(written(false));
    else if (voice.mode === 'on') finishing.push(written(false).then(async () => void (await speak())));
    else {
      if (answer) finishing.push(answer.abandon());
      // Spoken only, unless speech fails: then the text is written after all.
      finishing.push(speak().then((failed) => written(failed === undefined)));
    }
  } else if (answer) {
    finishing.push(answer.abandon());
  }
  replies.finishTurn(turnId, status);
  await Promise.all([...finishing, ...says]);
  react(status === 'completed' ? 'done' : status === 'interrupted' ? 'none' : 'failed');
  notice({ type: 'turn_finished', status });
  // debug: the agent logs each turn's end at info already.
  logger.debug({ status }, 'turn finished');
  return result;
}

/** Sends `text` split to the adapter's limit, straight to the platform; failures are logged, not thrown. */
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
  const presence = adapter.presence;
  if (!presence?.typing) return () => {};
  const typing = () => {
    presence.typing?.(replyTo).catch((error: unknown) => logger.debug({ err: error }, 'typing indicator failed'));
  };
  typing();
  const timer = setInterval(typing, presence.typingIntervalMs ?? DEFAULT_TYPING_INTERVAL_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}
