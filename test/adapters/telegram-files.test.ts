import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { printedPng, userText } from '../fakes/files-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { fileBackends, hasPython, startFilesGateway, tree, type FilesGateway } from './files-helpers.js';

const ADA = 1001;
const GROUP = -100777;
const TOPIC = 42;
const CSV = Buffer.from('item,amount\napples,12\npears,30\nplums,18\n');

let api: FakeTelegramApi | undefined;
let gateway: FilesGateway | undefined;

afterEach(async () => {
  await gateway?.stop();
  await api?.close();
  gateway = api = undefined;
});

async function start(backend: 'local' | 'sandbox', maxInboundMb = 20): Promise<{ api: FakeTelegramApi; gateway: FilesGateway }> {
  api = await new FakeTelegramApi().start();
  const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) };
  delete env.TELEGRAM_WEBHOOK_URL;
  gateway = await startFilesGateway('telegram', { api_root: api.apiRoot }, env, { backend, keyVar: 'HERMES_TG_FILES_KEY', maxInboundMb });
  return { api, gateway };
}

const textsTo = (fake: FakeTelegramApi, chat: number) => fake.sentTo(chat).map((sent) => sent.text);

describe.runIf(hasPython || process.env.CI === 'true')('Telegram files, both ways, through the fake Bot API', () => {
  for (const backend of fileBackends()) {
    describe(`on ${backend}`, () => {
      it('a CSV sent in a forum topic is read by a script, whose PNG comes back with sendPhoto in that topic with the caption', async () => {
        const { api, gateway } = await start(backend);
        api.injectFile({ chatId: GROUP, chatType: 'supergroup', threadId: TOPIC, kind: 'document', bytes: CSV, fileName: 'sales-2026-11.csv', mimeType: 'text/csv', caption: '@hermes_test_bot plot the totals' });
        await api.waitFor(() => textsTo(api, GROUP).some((text) => text.startsWith('done:')), 'the answer');
        expect(api.filesSentTo(GROUP)).toHaveLength(1);
        const [chart] = api.filesSentTo(GROUP);
        expect(chart.method).toBe('sendPhoto');
        expect(chart.message_thread_id).toBe(TOPIC);
        expect(chart.caption).toBe('total 60');
        expect(chart.name).toBe('chart.png');
        const png = printedPng(gateway.model.requests);
        expect(png?.subarray(1, 4).toString()).toBe('PNG');
        expect(chart.bytes.equals(png!)).toBe(true);
        // The model was told where the file is, and the file there is the one sent.
        const first = gateway.model.requests[0];
        expect(userText(first)).toBe('plot the totals\n[attached: uploads/sales-2026-11.csv — 40 B, text/csv]');
        expect(readFileSync(join(gateway.workspace(), 'uploads', 'sales-2026-11.csv')).equals(CSV)).toBe(true);
        expect(textsTo(api, GROUP).find((text) => text.startsWith('done:'))).toContain("'name': 'chart.png'");
      }, 90_000);

      it('a photo with no text starts a turn: the model gets the file line and the image itself', async () => {
        const { api, gateway } = await start(backend);
        const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(300, 7)]);
        api.injectFile({ chatId: ADA, kind: 'photo', bytes: jpeg });
        await api.waitFor(() => textsTo(api, ADA).some((text) => text.startsWith('echo:')), 'the answer');
        const request = gateway.model.requests[0];
        expect(userText(request)).toBe('[attached: uploads/photo.jpg — 304 B, image/jpeg]');
        const parts = request.body.messages.at(-1)!.content as Array<{ type: string; image_url?: { url: string } }>;
        expect(parts.find((part) => part.type === 'image_url')?.image_url?.url).toBe(`data:image/jpeg;base64,${jpeg.toString('base64')}`);
        expect(readFileSync(join(gateway.workspace(), 'uploads', 'photo.jpg')).equals(jpeg)).toBe(true);
      }, 90_000);

      it('files over the limit get a reply and are not saved; a file over 50 MB gives the model an error naming the limit', async () => {
        const { api, gateway } = await start(backend, 1);
        // Announced as too large: refused before any byte moves.
        api.injectFile({ chatId: ADA, kind: 'document', bytes: Buffer.from('small'), fileName: 'huge.zip', announcedSize: 5 * 1024 * 1024 });
        await api.waitFor(() => textsTo(api, ADA).some((text) => text.includes('huge.zip')), 'the refusal');
        expect(textsTo(api, ADA)).toEqual(['"huge.zip" is 5.0 MB, over the limit of 1.0 MB (files.max_inbound_mb), so it was not saved.']);
        // Announced small, but more arrives: cut off while moving, nothing left behind.
        api.injectFile({ chatId: ADA, kind: 'document', bytes: Buffer.alloc(1536 * 1024, 1), fileName: 'liar.bin', announcedSize: 10 });
        await api.waitFor(() => textsTo(api, ADA).some((text) => text.includes('liar.bin')), 'the second refusal');
        expect(textsTo(api, ADA)[1]).toMatch(/^"liar.bin" is .+, over the limit of 1.0 MB \(files.max_inbound_mb\), so it was not saved\.$/);
        await gateway.running.gateway.idle();
        expect(gateway.model.requests).toHaveLength(0);
        const workspace = gateway.workspace();
        expect(tree(workspace).filter((path) => path.startsWith('uploads/') && path !== 'uploads/')).toEqual([]);

        execFileSync('truncate', ['-s', `${51 * 1024 * 1024}`, join(workspace, 'big.bin')]);
        api.injectMessage({ chatId: ADA, text: 'send it [SEND:big.bin]' });
        await api.waitFor(() => textsTo(api, ADA).some((text) => text.startsWith('done:')), 'the answer');
        const result = textsTo(api, ADA).find((text) => text.startsWith('done:'))!;
        expect(result).toContain('big.bin is 51 MB; files sent to telegram may be at most 50 MB');
        expect(api.sentFiles).toEqual([]);
        expect(api.callsOf('sendDocument')).toEqual([]);
      }, 90_000);

      it('hostile names (../../.bashrc, a newline) are saved as plain names in uploads/ and nothing lands outside it', async () => {
        const { api, gateway } = await start(backend);
        api.injectFile({ chatId: ADA, kind: 'document', bytes: Buffer.from('echo pwned\n'), fileName: '../../.bashrc', caption: 'keep this' });
        await api.waitFor(() => textsTo(api, ADA).some((text) => text.startsWith('echo:')), 'the first answer');
        api.injectFile({ chatId: ADA, kind: 'document', bytes: CSV, fileName: 'a\nb.csv', mimeType: 'text/csv' });
        await api.waitFor(() => api.filesSentTo(ADA).length === 1, 'the chart of the second file');
        const workspace = gateway.workspace();
        const files = tree(workspace).filter((path) => !['chart.png'].includes(path) && !path.startsWith('.'));
        expect(files).toEqual(['uploads/', 'uploads/a_b.csv', 'uploads/bashrc']);
        expect(readFileSync(join(workspace, 'uploads', 'bashrc'), 'utf8')).toBe('echo pwned\n');
        expect(existsSync(join(workspace, '..', '..', '.bashrc'))).toBe(false);
        expect(userText(gateway.model.requests[0])).toBe('keep this\n[attached: uploads/bashrc — 11 B, application/octet-stream]');
      }, 90_000);
    });
  }

  it('voice notes, audio and video are saved under their own names or, without one, the kind\'s', async () => {
    const { api, gateway } = await start('local');
    const sends: Array<Parameters<FakeTelegramApi['injectFile']>[0]> = [
      { chatId: ADA, kind: 'voice', bytes: Buffer.from('OggS-voice') },
      { chatId: ADA, kind: 'audio', bytes: Buffer.from('ID3-song'), fileName: 'song.mp3' },
      { chatId: ADA, kind: 'video', bytes: Buffer.from('ftyp-clip') },
    ];
    for (const [i, file] of sends.entries()) {
      api.injectFile(file);
      await api.waitFor(() => textsTo(api, ADA).filter((text) => text.startsWith('echo:')).length === i + 1, `answer ${i + 1}`);
    }
    expect(gateway.model.requests.map((request) => userText(request))).toEqual([
      '[attached: uploads/voice.ogg — 10 B, audio/ogg]',
      '[attached: uploads/song.mp3 — 8 B, audio/mpeg]',
      '[attached: uploads/video.mp4 — 9 B, video/mp4]',
    ]);
  }, 90_000);

  it('a MEDIA: line in a reply attaches the file as a document; a missing one is said in the chat', async () => {
    const { api, gateway } = await start('local');
    const notes = join(gateway.workspace(), 'notes.txt');
    execFileSync('sh', ['-c', `printf 'hello notes' > '${notes}'`]);
    api.injectMessage({ chatId: ADA, text: 'attach [MEDIA:notes.txt]' });
    await api.waitFor(() => api.filesSentTo(ADA).length === 1, 'the document');
    const [sent] = api.filesSentTo(ADA);
    expect(sent.method).toBe('sendDocument');
    expect(sent.bytes.toString()).toBe('hello notes');
    expect(textsTo(api, ADA)).toEqual(['Here it is.']);
    api.injectMessage({ chatId: ADA, text: 'attach [MEDIA:missing.txt]' });
    await api.waitFor(() => textsTo(api, ADA).length === 3, 'the note');
    expect(textsTo(api, ADA)[2]).toBe("(Could not attach missing.txt: no file at missing.txt in the session's environment; write it first, or check the path.)");
  }, 90_000);
});
