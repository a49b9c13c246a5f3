import { createServer, type IncomingHttpHeaders } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenMayGo } from '../../adapters/slack/files.js';
import { printedPng, userText } from '../fakes/files-model.js';
import { FakeSlack, type SlackCall } from '../fakes/slack-server.js';
import { fileBackends, hasPython, startFilesGateway, type FilesGateway } from './files-helpers.js';

const CSV = Buffer.from('item,amount\napples,12\npears,30\nplums,18\n');

let slack: FakeSlack | undefined;
let gateway: FilesGateway | undefined;

afterEach(async () => {
  await gateway?.stop();
  await slack?.close();
  gateway = slack = undefined;
});

async function start(backend: 'local' | 'sandbox', maxInboundMb = 20): Promise<{ slack: FakeSlack; gateway: FilesGateway }> {
  slack = await new FakeSlack().listen();
  const env = { ...process.env, SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken, SLACK_ALLOWED_USERS: 'U1' };
  gateway = await startFilesGateway('slack', { mode: 'socket', api_url: slack.apiUrl }, env, { backend, keyVar: 'HERMES_SLACK_FILES_KEY', maxInboundMb });
  return { slack, gateway };
}

const inThread = (thread: string, text: string) => (call: SlackCall) => call.params.thread_ts === thread && String(call.params.text).includes(text);

describe.runIf(hasPython || process.env.CI === 'true')('Slack files, both ways, through the fake Web API', () => {
  for (const backend of fileBackends()) {
    it(`on ${backend}: a CSV shared in a thread is fetched with the bot token, read by a script, and its PNG is uploaded into the thread with the caption`, async () => {
      const { slack, gateway } = await start(backend);
      const thread = slack.nextTs();
      const file = slack.addFile({ name: 'sales-2026-11.csv', mimetype: 'text/csv', bytes: CSV });
      await slack.deliverSocket(slack.eventBody(slack.fileShare({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> plot the totals`, ts: thread, files: [file] })));
      await slack.waitForCall('chat.postMessage', inThread(thread, 'done:'), 60_000);

      expect(userText(gateway.model.requests[0])).toBe('plot the totals\n[attached: uploads/sales-2026-11.csv — 40 B, text/csv]');
      expect(readFileSync(join(gateway.workspace(), 'uploads', 'sales-2026-11.csv')).equals(CSV)).toBe(true);
      const uploads = [...slack.uploads.values()];
      expect(uploads).toHaveLength(1);
      const [upload] = uploads;
      expect(upload.filename).toBe('chart.png');
      expect(upload.completed).toEqual({ channel_id: 'C1', thread_ts: thread, initial_comment: 'total 60', title: 'chart.png' });
      expect(upload.bytes?.equals(printedPng(gateway.model.requests)!)).toBe(true);
      expect(upload.length).toBe(upload.bytes?.length);
    }, 90_000);
  }

  it('a file with no text in a DM starts a turn; one over the limit gets a reply in the DM and is not saved', async () => {
    const { slack, gateway } = await start('local', 1);
    const small = slack.addFile({ name: 'notes.txt', mimetype: 'text/plain', bytes: Buffer.from('remember the milk') });
    await slack.deliverSocket(slack.eventBody(slack.fileShare({ channel: 'D1', user: 'U1', ts: slack.nextTs(), files: [small] })));
    await slack.waitForCall('chat.postMessage', (call) => call.params.channel === 'D1' && String(call.params.text).startsWith('echo:'));
    expect(userText(gateway.model.requests[0])).toBe('[attached: uploads/notes.txt — 17 B, text/plain]');

    const big = slack.addFile({ name: 'dump.sql', mimetype: 'application/sql', bytes: Buffer.alloc(2 * 1024 * 1024, 65) });
    await slack.deliverSocket(slack.eventBody(slack.fileShare({ channel: 'D1', user: 'U1', ts: slack.nextTs(), files: [big] })));
    const refusal = await slack.waitForCall('chat.postMessage', (call) => String(call.params.text).includes('dump.sql'));
    expect(refusal.params.text).toBe('"dump.sql" is 2.0 MB, over the limit of 1.0 MB (files.max_inbound_mb), so it was not saved.');
    await gateway.running.gateway.idle();
    expect(gateway.model.requests).toHaveLength(1);
  }, 90_000);

  it('never sends the bot token to a file address off the Web API host', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const elsewhere = createServer((req, res) => {
      seen.push(req.headers);
      res.end('stolen');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      const { slack, gateway } = await start('local');
      const { port } = elsewhere.address() as { port: number };
      const bait = { id: 'F0BAIT', name: 'bait.txt', mimetype: 'text/plain', size: 6, url_private: `http://localhost:${port}/bait.txt`, url_private_download: `http://localhost:${port}/bait.txt` };
      await slack.deliverSocket(slack.eventBody(slack.fileShare({ channel: 'D1', user: 'U1', ts: slack.nextTs(), files: [bait] })));
      const refusal = await slack.waitForCall('chat.postMessage', (call) => String(call.params.text).includes('bait.txt'));
      expect(refusal.params.text).toContain("is not on Slack's own host");
      await gateway.running.gateway.idle();
      expect(seen).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
    // Slack's own file host is a subdomain of the API's; other hosts and plain http are not.
    expect(tokenMayGo('https://files.example.com/x', 'https://example.com/api/')).toBe(true);
    expect(tokenMayGo('https://example.com.evil.test/x', 'https://example.com/api/')).toBe(false);
    expect(tokenMayGo('http://files.example.com/x', 'https://example.com/api/')).toBe(false);
  }, 90_000);
});
