import { describe, expect, it } from 'vitest';
import { userText } from '../fakes/files-model.js';
import { probe, toneOgg } from '../fakes/fake-audio-api.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';
import { startVoiceGateway, type VoiceGateway } from './voice-gateway.js';

const ADA = 1001;
const keep = releaseAfterEach();

async function start(options: Parameters<typeof startVoiceGateway>[3] = {}): Promise<{ api: FakeTelegramApi; gateway: VoiceGateway }> {
  const api = keep(await new FakeTelegramApi().start(), (fake) => fake.close());
  const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) };
  delete env.TELEGRAM_WEBHOOK_URL;
  const gateway = keep(await startVoiceGateway('telegram', { api_root: api.apiRoot }, env, options), (started) => started.stop());
  return { api, gateway };
}

const texts = (fake: FakeTelegramApi) => fake.sentTo(ADA).map((sent) => sent.text);
const answers = (fake: FakeTelegramApi) => texts(fake).filter((text) => text.startsWith('echo:'));

describe('Telegram voice notes, through the fake Bot API and a fake transcription endpoint', () => {
  it('a voice note (OGG Opus made by ffmpeg) reaches /audio/transcriptions through the openai client, and the model reads its transcript', async () => {
    const { api, gateway } = await start();
    const ogg = toneOgg();
    api.injectFile({ chatId: ADA, kind: 'voice', bytes: ogg, mimeType: 'audio/ogg' });
    await api.waitFor(() => answers(api).length === 1, 'the answer');
    expect(gateway.audio.transcriptions).toHaveLength(1);
    const [request] = gateway.audio.transcriptions;
    expect(request.authorization).toBe('Bearer sk-stt-test');
    expect(request.fields.model).toBe('whisper-test');
    expect(request.file?.bytes.equals(ogg)).toBe(true);
    expect(request.file?.filename).toBe('voice.ogg');
    expect(userText(gateway.model.requests[0])).toMatch(/^\[attached: uploads\/voice\.ogg — .+, audio\/ogg\]\n\[transcript of uploads\/voice\.ogg: "hello from the voice note"\]$/);
  }, 90_000);

  it('a file sent as a voice note that is not audio is saved, not sent to the endpoint, and both the model and the sender are told why', async () => {
    const { api, gateway } = await start();
    api.injectFile({ chatId: ADA, kind: 'voice', bytes: Buffer.from('#!/bin/sh\nrm -rf /\n'), mimeType: 'audio/ogg' });
    await api.waitFor(() => answers(api).length === 1, 'the answer');
    expect(gateway.audio.transcriptions).toHaveLength(0);
    expect(userText(gateway.model.requests[0])).toContain('[not transcribed: uploads/voice.ogg — it is not audio (ffprobe');
    expect(texts(api).some((text) => text.startsWith('The voice was saved but not transcribed: it is not audio'))).toBe(true);
  }, 90_000);

  it('a recording over stt.max_mb is saved but never leaves the host; the model and the sender hear the limit', async () => {
    const { api, gateway } = await start({ stt: { max_mb: 0.001 } });
    api.injectFile({ chatId: ADA, kind: 'audio', bytes: toneOgg(2), fileName: 'memo.ogg', mimeType: 'audio/ogg' });
    await api.waitFor(() => answers(api).length === 1, 'the answer');
    expect(gateway.audio.transcriptions).toHaveLength(0);
    expect(userText(gateway.model.requests[0])).toMatch(/\[not transcribed: uploads\/memo\.ogg — it is .+, over the limit of 1 KB \(stt\.max_mb\)\]/);
    expect(texts(api).some((text) => text.startsWith('"memo.ogg" was saved but not transcribed: it is'))).toBe(true);
  }, 90_000);

  it('an endpoint slower than stt.timeout: the turn goes on and the model is told the transcription failed', async () => {
    const { api, gateway } = await start({ stt: { timeout: 1 } });
    gateway.audio.transcription = { kind: 'slow', delayMs: 10_000, text: 'too late' };
    api.injectFile({ chatId: ADA, kind: 'voice', bytes: toneOgg(), mimeType: 'audio/ogg' });
    await api.waitFor(() => answers(api).length === 1, 'the answer');
    expect(userText(gateway.model.requests[0])).toContain('[transcription failed: uploads/voice.ogg — the transcription endpoint did not answer within 1 s (stt.timeout)]');
  }, 90_000);

  it('garbage answers (HTML, JSON without text, an error status) each say the transcription failed instead of dropping the note', async () => {
    const { api, gateway } = await start();
    const behaviours = [
      { kind: 'garbage', body: '<html>oops</html>', contentType: 'text/html' },
      { kind: 'garbage', body: '{"words":[1,2]}', contentType: 'application/json' },
      { kind: 'status', status: 502 },
    ] as const;
    for (const [i, behaviour] of behaviours.entries()) {
      gateway.audio.transcription = behaviour;
      api.injectFile({ chatId: ADA, kind: 'voice', bytes: toneOgg(), mimeType: 'audio/ogg' });
      await api.waitFor(() => answers(api).length === i + 1, `answer ${i + 1}`);
    }
    const seen = gateway.model.requests.map((request) => userText(request));
    expect(seen[0]).toMatch(/\[transcription failed: uploads\/voice(-\d+)?\.ogg — the transcription endpoint answered with something that is not a transcript\]/);
    expect(seen[1]).toMatch(/\[transcription failed: uploads\/voice-?\d*\.ogg — the transcription endpoint answered with something that is not a transcript\]/);
    expect(seen[2]).toMatch(/\[transcription failed: uploads\/voice-?\d*\.ogg — the transcription endpoint answered HTTP 502\]/);
  }, 120_000);

  it('/voice on: the next answer is written and also arrives by sendVoice as OGG Opus made by espeak-ng (no key)', async () => {
    const { api, gateway } = await start();
    api.injectMessage({ chatId: ADA, text: '/voice on' });
    await api.waitFor(() => texts(api).some((text) => text.startsWith('Voice in this thread: on')), 'the /voice reply');
    api.injectMessage({ chatId: ADA, text: 'read this aloud\n```\nsecret code\n```' });
    await api.waitFor(() => api.filesSentTo(ADA).some((file) => file.method === 'sendVoice'), 'the voice note');
    expect(answers(api)).toHaveLength(1);
    const voice = api.filesSentTo(ADA).find((file) => file.method === 'sendVoice')!;
    expect(probe(voice.bytes)).toEqual({ codec: 'opus', format: 'ogg' });
    expect(voice.duration).toBeGreaterThanOrEqual(1);
    api.injectMessage({ chatId: ADA, text: '/voice only' });
    await api.waitFor(() => texts(api).some((text) => text.startsWith('Voice in this thread: only')), 'the second /voice reply');
    api.injectMessage({ chatId: ADA, text: 'just speak' });
    await api.waitFor(() => api.filesSentTo(ADA).filter((file) => file.method === 'sendVoice').length === 2, 'the second voice note');
    await gateway.running.gateway.idle();
    expect(answers(api)).toHaveLength(1);

    // The mode is the thread's: asked, refused when unknown, and turned off.
    for (const [command, reply] of [
      ['/voice', 'Voice in this thread: only (each answer arrives as a voice note only'],
      ['/voice loud', '/voice takes off, on, only (now: only).'],
      ['/voice off', 'Voice in this thread: off (answers are written only).'],
    ] as const) {
      api.injectMessage({ chatId: ADA, text: command });
      await api.waitFor(() => texts(api).some((text) => text.startsWith(reply)), `the reply to ${command}`);
    }
    api.injectMessage({ chatId: ADA, text: 'written again' });
    await api.waitFor(() => answers(api).length === 2, 'a written answer');
    await gateway.running.gateway.idle();
    expect(api.filesSentTo(ADA).filter((file) => file.method === 'sendVoice')).toHaveLength(2);
  }, 120_000);
});
