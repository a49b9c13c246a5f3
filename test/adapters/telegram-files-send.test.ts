import { Readable } from 'node:stream';
import { Bot } from 'grammy';
import { afterEach, describe, expect, it } from 'vitest';
import { sendTelegramFile } from '../../adapters/telegram/files.js';
import type { OutboundFile } from '../../src/gateway/index.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, 1, 2, 3]);

let api: FakeTelegramApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function file(fields: Partial<OutboundFile> = {}): OutboundFile & { opened: number } {
  const made = {
    name: 'chart.png',
    mimeType: 'image/png',
    size: PNG.length,
    opened: 0,
    open: async () => {
      made.opened += 1;
      return Readable.from([PNG]);
    },
    ...fields,
  };
  return made;
}

async function bot(): Promise<{ fake: FakeTelegramApi; send: (f: OutboundFile, target?: { chatId: number; messageThreadId?: number }) => Promise<string[]> }> {
  const fake = await new FakeTelegramApi().start();
  api = fake;
  const client = new Bot(fake.token, { client: { apiRoot: fake.apiRoot } }).api;
  const texts: string[] = [];
  return {
    fake,
    send: async (f, target = { chatId: 1001 }) => {
      await sendTelegramFile(client, target, f, async (text) => texts.push(text));
      return texts;
    },
  };
}

describe('sending files to Telegram', () => {
  it('a photo Telegram refuses (its dimensions) goes again as a document, read afresh', async () => {
    const { fake, send } = await bot();
    fake.refuseNext('sendPhoto', 400, 'Bad Request: PHOTO_INVALID_DIMENSIONS');
    const chart = file({ caption: 'wide chart' });
    await send(chart);
    expect(fake.callsOf('sendPhoto')).toHaveLength(1);
    expect(fake.sentFiles.map((sent) => [sent.method, sent.caption, sent.bytes.equals(PNG)])).toEqual([['sendDocument', 'wide chart', true]]);
    expect(chart.opened).toBe(2);
  });

  it('a caption over 1,024 characters follows the photo as a message of its own; an SVG is a document', async () => {
    const { fake, send } = await bot();
    const caption = 'x'.repeat(1500);
    const texts = await send(file({ caption }));
    expect(fake.sentFiles.map((sent) => [sent.method, sent.caption])).toEqual([['sendPhoto', undefined]]);
    expect(texts).toEqual([caption]);
    await send(file({ name: 'logo.svg', mimeType: 'image/svg+xml' }), { chatId: 1001, messageThreadId: 7 });
    expect(fake.sentFiles[1]).toMatchObject({ method: 'sendDocument', name: 'logo.svg', message_thread_id: 7 });
  });
});
