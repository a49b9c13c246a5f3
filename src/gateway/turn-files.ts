import type { TurnImage } from '../agent/types.js';
import type { Environment } from '../environments/index.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Listener } from '../voice/index.js';
import { receiveAttachments } from './attachments.js';
import { mediaLines, sendFileFrom } from './file-send.js';
import type { InboundMessage, PlatformAdapter, ReplyTarget } from './types.js';

/** What a turn needs to move files: the session's environment and the limits. */
export interface TurnFiles {
  /** The environment the turn runs in (made on first use). */
  environment(): Promise<Environment>;
  /** `files.max_inbound_mb` in bytes. */
  maxInboundBytes: number;
  /** `model.vision` is not false: images are kept for the model. */
  vision: boolean;
  /** Ends transfers at shutdown only: a new message does not, so a file being saved is not lost. */
  signal: AbortSignal;
  /** Voice in (`stt:`): recordings get their transcript in the message. */
  listen?: Listener;
}

/** The turn's input: the messages' texts joined, each with the lines of the files it brought. */
export interface TurnInput {
  text: string;
  images: TurnImage[];
}

/**
 * Saves the files of `messages` into the session's environment and says where in their texts.
 * A file that cannot be saved (over the limit, the platform failed) gets a reply through `say`.
 * Undefined when nothing is left to answer (only refused files and no text).
 */
export async function turnInput(files: TurnFiles | undefined, messages: readonly InboundMessage[], say: (text: string) => void, logger: Logger): Promise<TurnInput | undefined> {
  const texts: string[] = [];
  const images: TurnImage[] = [];
  for (const message of messages) {
    const lines: string[] = [];
    if (message.attachments && message.attachments.length > 0) {
      if (!files) {
        say('Files cannot be received here: this gateway has no environment to save them to. Send the text instead.');
      } else {
        try {
          const received = await receiveAttachments(await files.environment(), message.attachments, {
            maxBytes: files.maxInboundBytes,
            vision: files.vision,
            signal: files.signal,
            logger,
            ...(files.listen ? { listen: files.listen } : {}),
          });
          lines.push(...received.lines);
          images.push(...received.images);
          for (const refusal of received.refusals) say(refusal);
        } catch (error) {
          logger.error({ err: error }, 'could not save the files of a message');
          say(`The files could not be saved (${errorMessage(error)}); send them again in a moment.`);
        }
      }
    }
    const text = [message.text.trim(), ...lines].filter(Boolean).join('\n');
    if (text) texts.push(text);
  }
  return texts.length > 0 ? { text: texts.join('\n\n'), images } : undefined;
}

/**
 * Sends a reply's text and then the files its `MEDIA:<path>` lines name, pulled out of the
 * session's environment; a file that cannot be sent is said in the chat instead.
 */
export async function sendReplyWithMedia(
  reply: string,
  deps: { adapter: PlatformAdapter; replyTo: ReplyTarget; files?: TurnFiles; sendText: (text: string) => Promise<void> },
  logger: Logger,
): Promise<void> {
  const { text, paths } = mediaLines(reply);
  if (text.trim()) await deps.sendText(text);
  for (const path of paths) {
    try {
      if (!deps.files) throw new Error('this gateway has no environment to take files from');
      const environment = await deps.files.environment();
      await sendFileFrom(deps.adapter, deps.replyTo, { path, environment, signal: deps.files.signal });
    } catch (error) {
      logger.warn({ err: error, path }, 'could not attach a MEDIA: file');
      await deps.sendText(`(Could not attach ${path}: ${errorMessage(error)}.)`);
    }
  }
}
