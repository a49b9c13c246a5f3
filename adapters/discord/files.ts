import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { MessageFlags, type Message } from 'discord.js';
import type { InboundAttachment, OutboundFile } from '../../src/gateway/types.js';

/** Discord takes 10 MiB of files per message in a server without boosts (and in DMs). */
export const DISCORD_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** A caption longer than a message may be follows as messages of its own. */
export const DISCORD_CAPTION_MAX = 2000;

/** A message's attachments, each fetched from its (signed) CDN URL when opened. */
export function discordAttachments(message: Message): InboundAttachment[] {
  // A voice message (IS_VOICE_MESSAGE, its attachment with a duration and waveform) is a voice note; other audio is audio.
  const voiceMessage = message.flags.has(MessageFlags.IsVoiceMessage);
  return [...message.attachments.values()].map((attachment) => ({
    kind: voiceMessage || attachment.duration !== null ? ('voice' as const) : attachment.contentType?.startsWith('audio/') ? ('audio' as const) : ('file' as const),
    name: attachment.name,
    ...(attachment.contentType ? { mimeType: attachment.contentType } : {}),
    size: attachment.size,
    open: (signal: AbortSignal) => fetchAttachment(attachment.url, signal),
  }));
}

async function fetchAttachment(url: string, signal: AbortSignal): Promise<Readable> {
  const response = await fetch(url, { signal });
  if (!response.ok || !response.body) throw new Error(`Discord's attachment download answered HTTP ${response.status}`);
  return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
}

/** What discord.js sends for one file: the REST `files` entry and the attachment it announces in the body. */
export interface DiscordUpload {
  files: Array<{ name: string; data: Buffer; contentType: string }>;
  attachments: Array<{ id: number; filename: string }>;
  /** The caption when it fits in the message. */
  content?: string;
  /** The caption when it is too long for the message: sent after the file. */
  followingText?: string;
}

/**
 * Reads the file (at most DISCORD_FILE_MAX_BYTES: discord.js sends a file from memory) and
 * shapes the multipart request: `payload_json` with the attachment, `files[0]` with the bytes.
 */
export async function discordUpload(file: OutboundFile): Promise<DiscordUpload> {
  const data = await buffer(await file.open());
  const fits = file.caption !== undefined && file.caption.length <= DISCORD_CAPTION_MAX;
  return {
    files: [{ name: file.name, data, contentType: file.mimeType }],
    attachments: [{ id: 0, filename: file.name }],
    ...(fits ? { content: file.caption } : {}),
    ...(file.caption && !fits ? { followingText: file.caption } : {}),
  };
}
