import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/agent/index.js';
import type { ModelClient, ModelRequest } from '../../src/agent/index.js';
import { visionClient, withImages } from '../../src/agent/vision.js';
import { LocalEnvironment } from '../../src/environments/index.js';
import { formatSize, mediaLines, receiveAttachments, safeFileName, uniqueName, type InboundAttachment } from '../../src/gateway/index.js';
import type { ChatMessage } from '../../src/sessions/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { tempDir } from '../helpers/tool-context.js';

const attachment = (fields: Partial<InboundAttachment> & { bytes?: Buffer }): InboundAttachment => ({
  kind: 'document',
  ...fields,
  open: fields.open ?? (async () => Readable.from([fields.bytes ?? Buffer.from('x')])),
});

function workspace(): { dir: string; env: LocalEnvironment } {
  const dir = tempDir('hermes-attach-');
  return { dir, env: new LocalEnvironment({ cwd: dir, timeout: 30, maxOutputBytes: 50_000, childEnv: () => ({ PATH: process.env.PATH ?? '' }) }) };
}

const options = (maxBytes = 1024 * 1024, vision = true) => ({ maxBytes, vision, signal: new AbortController().signal, logger: silentLogger() });

describe('safe file names', () => {
  it('keeps only the last part of a path, letters, digits and . _ - +, and no leading dot or dash', () => {
    expect(safeFileName('../../.bashrc')).toBe('bashrc');
    expect(safeFileName('a\nb.csv')).toBe('a_b.csv');
    expect(safeFileName('C:\\Users\\ada\\report.pdf')).toBe('report.pdf');
    expect(safeFileName('-rf *.txt')).toBe('rf_.txt');
    expect(safeFileName('résumé 2026.pdf')).toBe('résumé_2026.pdf');
    expect(safeFileName('\u202egnp.exe')).toBe('gnp.exe');
    expect(safeFileName('..')).toBe('file');
    expect(safeFileName(undefined, 'photo', 'jpg')).toBe('photo.jpg');
    expect(safeFileName('$(reboot)`id`.sh')).toBe('reboot_id_.sh');
  });

  it('cuts a long name to 120 bytes and keeps its extension', () => {
    const name = safeFileName(`${'ü'.repeat(200)}.csv`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(120);
    expect(name.endsWith('.csv')).toBe(true);
  });

  it('numbers a name that is taken before its extension', () => {
    const taken = new Set(['report.csv', 'report-2.csv']);
    expect(uniqueName('report.csv', taken)).toBe('report-3.csv');
    expect(uniqueName('notes', new Set(['notes']))).toBe('notes-2');
  });

  it('writes sizes as people read them', () => {
    expect([532, 12 * 1024, 3.4 * 1024 * 1024, 25 * 1024 * 1024].map(formatSize)).toEqual(['532 B', '12 KB', '3.4 MB', '25 MB']);
  });
});

describe('receiveAttachments', () => {
  it('never replaces a file already in uploads/: the new one is numbered', async () => {
    const { dir, env } = workspace();
    mkdirSync(join(dir, 'uploads'));
    writeFileSync(join(dir, 'uploads', 'report.csv'), 'old');
    const received = await receiveAttachments(env, [attachment({ name: 'report.csv', bytes: Buffer.from('new one') })], options());
    expect(received.lines).toEqual(['[attached: uploads/report-2.csv — 7 B, text/csv]']);
    expect(readFileSync(join(dir, 'uploads', 'report.csv'), 'utf8')).toBe('old');
    expect(readFileSync(join(dir, 'uploads', 'report-2.csv'), 'utf8')).toBe('new one');
  });

  it('refuses a file that passes the limit while it arrives and leaves nothing behind, not even a partial file', async () => {
    const { dir, env } = workspace();
    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024, 1));
    const received = await receiveAttachments(env, [attachment({ name: 'big.bin', open: async () => Readable.from(chunks) })], options(1024 * 1024));
    expect(received.lines).toEqual([]);
    expect(received.refusals).toHaveLength(1);
    expect(received.refusals[0]).toMatch(/^"big.bin" is .+, over the limit of 1.0 MB \(files.max_inbound_mb\), so it was not saved\.$/);
    expect(readdirSync(join(dir, 'uploads'))).toEqual([]);
  });

  it('says so when the platform fails to give the file, and saves the others', async () => {
    const { env } = workspace();
    const broken = attachment({ name: 'gone.txt', open: async () => Promise.reject(new Error('HTTP 404')) });
    const received = await receiveAttachments(env, [broken, attachment({ name: 'ok.txt', bytes: Buffer.from('ok') })], options());
    expect(received.refusals).toEqual([`"gone.txt" could not be saved (HTTP 404); send it again, or ask the gateway's operator to look at the log.`]);
    expect(received.lines).toEqual(['[attached: uploads/ok.txt — 2 B, text/plain]']);
  });

  it('keeps images for the model only when vision is on and they are small enough', async () => {
    const { env } = workspace();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const seen = await receiveAttachments(env, [attachment({ name: 'a.png', mimeType: 'image/png', bytes: png }), attachment({ name: 'b.svg', mimeType: 'image/svg+xml' })], options());
    expect(seen.images).toEqual([{ mimeType: 'image/png', data: png }]);
    const blind = await receiveAttachments(env, [attachment({ name: 'c.png', mimeType: 'image/png', bytes: png })], options(1024 * 1024, false));
    expect(blind.images).toEqual([]);
    const huge = await receiveAttachments(env, [attachment({ name: 'd.png', mimeType: 'image/png', size: 6 * 1024 * 1024, bytes: png })], options(20 * 1024 * 1024));
    expect(huge.images).toEqual([]);
  });
});

describe('MEDIA: lines', () => {
  it('takes the files a reply names on lines of their own and leaves examples in code fences', () => {
    const reply = ['Here is the chart.', 'MEDIA:/workspace/chart.png', '', 'MEDIA: `report.pdf`', '```', 'MEDIA:example.png', '```'].join('\n');
    const { text, paths } = mediaLines(reply);
    expect(paths).toEqual(['/workspace/chart.png', 'report.pdf']);
    expect(text).toBe(['Here is the chart.', '', '```', 'MEDIA:example.png', '```'].join('\n'));
    expect(mediaLines('no files here')).toEqual({ text: 'no files here', paths: [] });
  });
});

describe('model.vision', () => {
  /** A client whose endpoint refuses image parts with a 400, as text-only servers do; it records what it was sent. */
  function textOnlyEndpoint(): ModelClient & { sent: ModelRequest['messages'][] } {
    const sent: ModelRequest['messages'][] = [];
    return {
      model: 'm',
      sent,
      async complete(request) {
        sent.push(structuredClone(request.messages));
        const images = request.messages.some((m) => Array.isArray(m.content) && m.content.some((part) => part.type === 'image_url'));
        if (images) throw new ModelError('MODEL_BAD_REQUEST', 'the server refused the request', 400);
        return { content: 'ok', toolCalls: [], finishReason: 'stop' };
      },
    };
  }
  const image = { mimeType: 'image/png', data: Buffer.from([1, 2, 3]) };
  const user: ChatMessage & { role: 'user' } = { role: 'user', content: 'look [attached: uploads/a.png — 3 B, image/png]' };

  it('auto: a request with images the endpoint refuses is sent again without them, and later turns send none', async () => {
    const endpoint = textOnlyEndpoint();
    const client = visionClient(endpoint, 'auto', silentLogger());
    const message = withImages(user, [image], client);
    expect(message.content).toEqual([
      { type: 'text', text: user.content },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AQID' } },
    ]);
    const parts = structuredClone(message.content);
    const reply = await client.complete({ messages: [message], tools: [] });
    expect(reply.content).toBe('ok');
    expect(endpoint.sent.map((messages) => messages[0].content)).toEqual([parts, user.content]);
    expect(client.seesImages).toBe(false);
    expect(withImages(user, [image], client)).toBe(user);
  });

  it('false never sends images; true sends them and lets the endpoint\'s refusal through', async () => {
    expect(withImages(user, [image], visionClient(textOnlyEndpoint(), false, silentLogger()))).toBe(user);
    const strict = visionClient(textOnlyEndpoint(), true, silentLogger());
    await expect(strict.complete({ messages: [withImages(user, [image], strict)], tools: [] })).rejects.toMatchObject({ status: 400 });
  });
});
