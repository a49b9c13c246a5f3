import { describe, expect, it } from 'vitest';
import { probe, toneOgg } from '../fakes/fake-audio-api.js';
import { FakeDiscord, type DiscordCall, type FakeDiscordUser } from '../fakes/discord-server.js';
import { userText } from '../fakes/files-model.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';
import { startVoiceGateway } from './voice-gateway.js';

const alice: FakeDiscordUser = { id: '800000000000000001', username: 'alice' };
const DM = '940000000000000001';
const keep = releaseAfterEach();

const postIn = (fake: FakeDiscord, channel: string, test: (call: DiscordCall) => boolean) =>
  fake.waitForCall('POST', new RegExp(`^/channels/${channel}/messages$`), test, 60_000);

describe('Discord voice messages, through the fake REST API and Gateway and a fake transcription endpoint', () => {
  it('a voice message (IS_VOICE_MESSAGE, duration and waveform) is transcribed; /voice on answers with a voice message of Opus, its duration and waveform', async () => {
    const discord = keep(await new FakeDiscord().listen(), (fake) => fake.close());
    const env = { ...process.env, DISCORD_BOT_TOKEN: discord.token, DISCORD_ALLOWED_USERS: alice.id };
    const gateway = keep(await startVoiceGateway('discord', { api_url: discord.apiUrl }, env), (started) => started.stop());
    const ogg = toneOgg();
    discord.userMessage({ author: alice, content: '', dm: true, channelId: DM, files: [{ filename: 'voice-message.ogg', contentType: 'audio/ogg', bytes: ogg }], voice: { durationSecs: 1, waveform: Buffer.alloc(64, 128).toString('base64') } });
    await postIn(discord, DM, (call) => String(call.body?.content).startsWith('echo:'));
    expect(gateway.audio.transcriptions).toHaveLength(1);
    expect(gateway.audio.transcriptions[0].file?.bytes.equals(ogg)).toBe(true);
    expect(userText(gateway.model.requests[0])).toMatch(/^\[attached: uploads\/voice-message\.ogg — .+, audio\/ogg\]\n\[transcript of uploads\/voice-message\.ogg: "hello from the voice note"\]$/);

    discord.userMessage({ author: alice, content: '/voice on', dm: true, channelId: DM });
    await postIn(discord, DM, (call) => String(call.body?.content).startsWith('Voice in this thread: on'));
    discord.userMessage({ author: alice, content: 'say something', dm: true, channelId: DM });
    const voice = await postIn(discord, DM, (call) => call.body?.flags === 1 << 13);
    expect(voice.files).toHaveLength(1);
    expect(voice.files?.[0].filename).toBe('voice-message.ogg');
    expect(probe(voice.files![0].bytes)).toEqual({ codec: 'opus', format: 'ogg' });
    const [attachment] = voice.body?.attachments as Array<{ id: number; filename: string; duration_secs: number; waveform: string }>;
    expect(attachment.filename).toBe('voice-message.ogg');
    expect(attachment.duration_secs).toBeGreaterThan(0.3);
    const waveform = Buffer.from(attachment.waveform, 'base64');
    expect(waveform.length).toBeGreaterThan(0);
    expect(waveform.length).toBeLessThanOrEqual(256);
    expect(Math.max(...waveform)).toBeGreaterThan(0);
  }, 90_000);
});
