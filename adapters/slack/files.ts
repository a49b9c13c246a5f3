import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { App } from '@slack/bolt';
import type { InboundAttachment, OutboundFile } from '../../src/gateway/types.js';

/** Slack takes files of up to 1 GB. */
export const SLACK_FILE_MAX_BYTES = 1024 * 1024 * 1024;

/** The fields of a file in a `file_share` message the adapter reads. */
export interface SlackFile {
  id: string;
  name?: string;
  title?: string;
  mimetype?: string;
  /** `slack_audio` for a clip recorded in Slack. */
  subtype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
  /** `check_file_info`: the event left details out; files.info has them. */
  file_access?: string;
}

type Client = App['client'];

/** The files of a message, each downloaded from its url_private with the bot token when opened. */
export function slackAttachments(files: readonly SlackFile[] | undefined, client: Client, token: string): InboundAttachment[] {
  return (files ?? [])
    .filter((file) => typeof file?.id === 'string')
    .map((file) => ({
      // An audio clip (recorded in Slack, or an audio file) is transcribed when stt is on.
      kind: (file.mimetype ?? '').startsWith('audio/') || file.subtype === 'slack_audio' ? ('audio' as const) : ('file' as const),
      ...(file.name ?? file.title ? { name: file.name ?? file.title } : {}),
      ...(file.mimetype ? { mimeType: file.mimetype } : {}),
      ...(typeof file.size === 'number' ? { size: file.size } : {}),
      open: (signal: AbortSignal) => downloadSlackFile(file, client, token, signal),
    }));
}

/**
 * Fetches a file with `Authorization: Bearer <bot token>`. The token goes only to the Web API's
 * own host or its subdomains (or the very origin of another `api_url`), never to an address an
 * event named elsewhere.
 */
async function downloadSlackFile(file: SlackFile, client: Client, token: string, signal: AbortSignal): Promise<Readable> {
  let url = file.url_private_download ?? file.url_private;
  if (!url || file.file_access === 'check_file_info') {
    const info = await client.files.info({ file: file.id });
    url = info.file?.url_private_download ?? info.file?.url_private;
  }
  if (!url) throw new Error('Slack gave no address to download the file from');
  if (!tokenMayGo(url, client.slackApiUrl)) throw new Error(`the file's address is not on Slack's own host (${new URL(url).host}), so the bot token is not sent there`);
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal });
  if (!response.ok || !response.body) throw new Error(`Slack's file download answered HTTP ${response.status}`);
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/html') && !(file.mimetype ?? '').startsWith('text/html')) {
    await response.body.cancel();
    throw new Error("Slack answered with its sign-in page instead of the file: the app needs the files:read scope (add it in the app's manifest and reinstall)");
  }
  return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
}

/** True when `url` is on the API's host or a subdomain of its domain, over https (or the API's own origin). */
export function tokenMayGo(url: string, apiUrl: string): boolean {
  let target: URL;
  let api: URL;
  try {
    target = new URL(url);
    api = new URL(apiUrl);
  } catch {
    return false;
  }
  if (target.origin === api.origin) return true;
  if (target.protocol !== 'https:' || api.protocol !== 'https:') return false;
  const domain = api.hostname.split('.').slice(-2).join('.');
  return target.hostname === domain || target.hostname.endsWith(`.${domain}`);
}

/** Where a file goes in Slack. */
export interface SlackFileTarget {
  channel: string;
  threadTs?: string;
}

/**
 * Slack's external upload flow: files.getUploadURLExternal with the name and length, the bytes
 * streamed to the upload URL (a file of unknown length is first spooled to a temporary file to
 * learn it), then files.completeUploadExternal shares it in the channel and thread with the caption.
 */
export async function sendSlackFile(client: Client, target: SlackFileTarget, file: OutboundFile): Promise<{ messageId: string }> {
  let spool: string | undefined;
  try {
    let size = file.size;
    let open = () => file.open();
    if (size === undefined) {
      spool = await mkdtemp(join(tmpdir(), 'hermes-slack-upload-'));
      const path = join(spool, 'file');
      await pipeline(await file.open(), createWriteStream(path));
      size = (await stat(path)).size;
      open = async () => createReadStream(path);
    }
    const asked = await client.files.getUploadURLExternal({ filename: file.name, length: size });
    if (!asked.upload_url || !asked.file_id) throw new Error('files.getUploadURLExternal gave no upload URL');
    await postBytes(asked.upload_url, await open(), size);
    await client.files.completeUploadExternal({
      files: [{ id: asked.file_id, title: file.name }],
      channel_id: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      ...(file.caption ? { initial_comment: file.caption } : {}),
    });
    return { messageId: asked.file_id };
  } finally {
    if (spool) await rm(spool, { recursive: true, force: true });
  }
}

/** POSTs `body` (exactly `length` bytes) to a pre-signed upload URL, streamed. */
function postBytes(url: string, body: Readable, length: number): Promise<void> {
  const request = new URL(url).protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<void>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': length } }, (res) => {
      res.resume();
      res.once('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`Slack's upload URL answered HTTP ${res.statusCode}`))));
      res.once('error', reject);
    });
    req.once('error', reject);
    pipeline(body, req).catch((error: unknown) => {
      req.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
    });
  });
}
