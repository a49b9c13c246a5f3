import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDiscord, type DiscordCall, type FakeDiscordUser } from '../fakes/discord-server.js';
import { printedPng, userText } from '../fakes/files-model.js';
import { fileBackends, hasPython, startFilesGateway, type FilesGateway } from './files-helpers.js';

const alice: FakeDiscordUser = { id: '800000000000000001', username: 'alice' };
const CSV = Buffer.from('item,amount\napples,12\npears,30\nplums,18\n');

let discord: FakeDiscord | undefined;
let gateway: FilesGateway | undefined;

afterEach(async () => {
  await gateway?.stop();
  await discord?.close();
  gateway = discord = undefined;
});

async function start(backend: 'local' | 'sandbox', maxInboundMb = 20): Promise<{ discord: FakeDiscord; gateway: FilesGateway }> {
  discord = await new FakeDiscord().listen();
  const env = { ...process.env, DISCORD_BOT_TOKEN: discord.token, DISCORD_ALLOWED_USERS: alice.id };
  gateway = await startFilesGateway('discord', { api_url: discord.apiUrl }, env, { backend, keyVar: 'HERMES_DISCORD_FILES_KEY', maxInboundMb });
  return { discord, gateway };
}

const postIn = (fake: FakeDiscord, channel: string, text: string) =>
  fake.waitForCall('POST', new RegExp(`^/channels/${channel}/messages$`), (call: DiscordCall) => String(call.body?.content).includes(text), 60_000);

describe.runIf(hasPython || process.env.CI === 'true')('Discord files, both ways, through the fake REST API and Gateway', () => {
  for (const backend of fileBackends()) {
    it(`on ${backend}: a CSV attached to a mention is read by a script, whose PNG comes back in the bot's thread as payload_json + files[0] with the caption`, async () => {
      const { discord, gateway } = await start(backend);
      const thread = discord.userMessage({ author: alice, content: 'plot the totals', mentionBot: true, files: [{ filename: 'sales-2026-11.csv', contentType: 'text/csv', bytes: CSV }] });
      await postIn(discord, thread, 'done:');
      expect(userText(gateway.model.requests[0])).toBe('plot the totals\n[attached: uploads/sales-2026-11.csv — 40 B, text/csv]');
      expect(readFileSync(join(gateway.workspace(), 'uploads', 'sales-2026-11.csv')).equals(CSV)).toBe(true);
      const files = discord.filesIn(thread);
      expect(files).toHaveLength(1);
      expect(files[0].filename).toBe('chart.png');
      expect(files[0].content_type).toBe('image/png');
      expect(files[0].message.content).toBe('total 60');
      expect(files[0].bytes.equals(printedPng(gateway.model.requests)!)).toBe(true);
      const upload = discord.callsTo('POST', new RegExp(`^/channels/${thread}/messages$`)).find((call) => call.files);
      expect(upload?.files?.map((file) => file.field)).toEqual(['files[0]']);
      expect(upload?.body?.attachments).toEqual([{ id: 0, filename: 'chart.png' }]);
    }, 90_000);
  }

  it('an attachment with no text in a DM starts a turn; one over the limit is refused; a file over 10 MiB gives the model the limit', async () => {
    const { discord, gateway } = await start('local', 1);
    const dm = '940000000000000001';
    discord.userMessage({ author: alice, content: '', dm: true, channelId: dm, files: [{ filename: 'notes.md', contentType: 'text/markdown', bytes: Buffer.from('# notes') }] });
    await postIn(discord, dm, 'echo:');
    expect(userText(gateway.model.requests[0])).toBe('[attached: uploads/notes.md — 7 B, text/markdown]');

    discord.userMessage({ author: alice, content: 'take this', dm: true, channelId: dm, files: [{ filename: 'big.iso', contentType: 'application/octet-stream', bytes: Buffer.alloc(10), size: 3 * 1024 * 1024 }] });
    const refusal = await postIn(discord, dm, 'big.iso');
    expect(refusal.body?.content).toBe('"big.iso" is 3.0 MB, over the limit of 1.0 MB (files.max_inbound_mb), so it was not saved.');

    execFileSync('truncate', ['-s', `${11 * 1024 * 1024}`, join(gateway.workspace(), 'video.mp4')]);
    discord.userMessage({ author: alice, content: 'send [SEND:video.mp4]', dm: true, channelId: dm });
    const answer = await postIn(discord, dm, 'done:');
    expect(answer.body?.content).toContain('video.mp4 is 11 MB; files sent to discord may be at most 10 MB');
    expect(discord.filesIn(dm)).toEqual([]);
  }, 90_000);
});
