import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { GrammyError, InputFile, type Api } from 'grammy';
import type { Message } from 'grammy/types';
import { z } from 'zod';
import type { AttachmentDescription, InboundAttachment, OutboundFile } from '../../src/gateway/index.js';

/** The Bot API's limits on its cloud server: a photo up to 10 MB, any upload up to 50 MB, a caption up to 1,024 characters. */
export const TELEGRAM_PHOTO_MAX_BYTES = 10 * 1024 * 1024;
export const TELEGRAM_FILE_MAX_BYTES = 50 * 1024 * 1024;
const CAPTION_MAX = 1024;
/** Images Telegram shows as photos; others (GIF, SVG) go as documents. */
const PHOTO_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);

/** Where files are downloaded from: `<api root>/file/bot<token>/<file_path>`. */
export interface TelegramFileSource {
  api: Pick<Api, 'getFile'>;
  token: string;
  /** The Bot API root in use (grammY's default unless `platforms.telegram.api_root`). */
  root(): string;
}

/** The files of a message (photo, document, audio, voice note, video), each fetched through getFile when opened. */
export function telegramAttachments(message: Message, source: TelegramFileSource): InboundAttachment[] {
  const open = (fileId: string) => (signal: AbortSignal) => downloadTelegramFile(source, fileId, signal);
  const found: InboundAttachment[] = [];
  if (message.photo && message.photo.length > 0) {
    // Telegram sends one photo in several sizes, smallest first: the last is the original.
    const photo = message.photo[message.photo.length - 1];
    found.push({ kind: 'photo', mimeType: 'image/jpeg', size: photo.file_size, open: open(photo.file_id), ref: { platform: 'telegram', fileId: photo.file_id } });
  }
  const kinds = [
    ['document', message.document],
    ['audio', message.audio],
    ['voice', message.voice],
    ['video', message.video],
  ] as const;
  for (const [kind, file] of kinds) {
    if (!file) continue;
    const name = 'file_name' in file ? file.file_name : undefined;
    found.push({ kind, ...(name ? { name } : {}), mimeType: file.mime_type, size: file.file_size, open: open(file.file_id), ref: { platform: 'telegram', fileId: file.file_id } });
  }
  return found;
}

/** Telegram's file ids are URL-safe base64 tokens; anything else is not one it gave. */
const FILE_ID = /^[A-Za-z0-9_-]{1,256}$/;
/** A Telegram file's ref as another instance passed it: exactly these two keys. */
const telegramFileRefSchema = z.strictObject({ platform: z.literal('telegram'), fileId: z.string().regex(FILE_ID) });

/**
 * A file another instance received, reopened from its ref (a file id stays valid for the bot
 * that received it: all instances are that bot); undefined for a ref that is not a plain Telegram file id.
 */
export function reopenTelegramAttachment(ref: unknown, described: AttachmentDescription, source: TelegramFileSource): InboundAttachment | undefined {
  const parsed = telegramFileRefSchema.safeParse(ref);
  if (!parsed.success) return undefined;
  const { platform, fileId } = parsed.data;
  return { ...described, ref: { platform, fileId }, open: (signal) => downloadTelegramFile(source, fileId, signal) };
}

/** getFile, then the download, as a stream. */
async function downloadTelegramFile(source: TelegramFileSource, fileId: string, signal: AbortSignal): Promise<Readable> {
  let path: string | undefined;
  try {
    path = (await source.api.getFile(fileId)).file_path;
  } catch (error) {
    if (error instanceof GrammyError && error.description.includes('file is too big')) {
      throw new Error('Telegram lets bots download files of at most 20 MB', { cause: error });
    }
    throw error;
  }
  if (!path) throw new Error('Telegram gave no path to download the file from');
  // The address carries the token: it is never logged.
  const response = await fetch(`${source.root()}/file/bot${source.token}/${path}`, { signal });
  if (!response.ok || !response.body) throw new Error(`Telegram's file download answered HTTP ${response.status}`);
  return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
}

/** Where a file goes: the chat, its forum topic, and (in groups) the message it answers. */
export interface TelegramFileTarget {
  chatId: number;
  messageThreadId?: number;
  replyToMessageId?: number;
}

/**
 * Sends a file: sendPhoto for a JPEG, PNG or WebP of at most 10 MB (a photo Telegram refuses,
 * say for its dimensions, goes again as a document), else sendDocument; both stream the bytes
 * as multipart. A caption over 1,024 characters follows as a message of its own.
 */
export async function sendTelegramFile(api: Api, target: TelegramFileTarget, file: OutboundFile, sendText: (text: string) => Promise<unknown>): Promise<{ messageId: string }> {
  const long = file.caption !== undefined && file.caption.length > CAPTION_MAX;
  const other = {
    ...(file.caption && !long ? { caption: file.caption } : {}),
    ...(target.messageThreadId !== undefined ? { message_thread_id: target.messageThreadId } : {}),
    ...(target.replyToMessageId !== undefined ? { reply_parameters: { message_id: target.replyToMessageId, allow_sending_without_reply: true } } : {}),
  };
  const input = async () => new InputFile(await file.open(), file.name);
  let sent: Message | undefined;
  if (PHOTO_TYPES.has(file.mimeType) && file.size !== undefined && file.size <= TELEGRAM_PHOTO_MAX_BYTES) {
    try {
      sent = await api.sendPhoto(target.chatId, await input(), other);
    } catch (error) {
      if (!(error instanceof GrammyError) || error.error_code !== 400 || !/PHOTO|IMAGE/i.test(error.description)) throw error;
    }
  }
  sent ??= await api.sendDocument(target.chatId, await input(), other);
  if (long && file.caption) await sendText(file.caption);
  return { messageId: String(sent.message_id) };
}
