import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { e2eModel, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { removeHome, startStreamGateway, words, type StreamGateway } from '../fakes/stream-harness.js';

/*
 * Streamed replies on Telegram through the real gateway, agent and grammY against the fake
 * Bot API: drafts in private chats, one message edited in place in groups, and flood control.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;
const ADA = 1001;
const GROUP = -100777;

let api: FakeTelegramApi | undefined;
let gw: StreamGateway | undefined;

afterEach(async () => {
  await gw?.stop();
  if (gw) removeHome(gw.home);
  await api?.close();
  gw = api = undefined;
});

function env(api: FakeTelegramApi): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) };
  delete env.TELEGRAM_WEBHOOK_URL;
  delete env.GATEWAY_ALLOW_ALL_USERS;
  return env;
}

describe('Telegram: streamed replies', () => {
  it('in a private chat a 400-word answer streams as a draft and becomes one message with the model text, within the rate', async () => {
    api = await new FakeTelegramApi({ enforceRates: true }).start();
    const answer = words(400);
    gw = await startStreamGateway('telegram', { api_root: api.apiRoot }, env(api), { replies: [{ text: answer, chunkChars: 12, paceMs: 8 }] });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'tell me a long story' });
    await api.waitFor(() => api!.sentTo(ADA).length === 1, 'the answer');
    await gw.running.gateway.idle();
    const drafts = api.draftsIn(ADA);
    expect(drafts).toHaveLength(1);
    expect(drafts[0].updates).toBeGreaterThan(1);
    expect(drafts[0].cleared).toBe(true);
    const sent = api.sentTo(ADA);
    expect(sent).toHaveLength(1);
    expect(sent[0].text).toBe(answer);
    expect(api.callsOf('editMessageText')).toHaveLength(0);
    expect(api.rateViolations).toBe(0);
  }, 60_000);

  it('in a group the answer is one message sent once and edited in place, ending with the model text', async () => {
    api = await new FakeTelegramApi({ enforceRates: true }).start();
    const answer = words(400, 'group');
    gw = await startStreamGateway('telegram', { api_root: api.apiRoot }, env(api), { replies: [{ text: answer, chunkChars: 12, paceMs: 8 }] });
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', text: `@${api.botUsername} tell me a long story` });
    await gw.running.gateway.idle();
    await api.waitFor(() => api!.sentTo(GROUP).some((message) => message.text === answer), 'the finished answer');
    const sent = api.sentTo(GROUP);
    expect(sent).toHaveLength(1);
    expect(sent[0].edits).toBeGreaterThan(0);
    expect(sent[0].text).toBe(answer);
    expect(api.callsOf('sendMessageDraft')).toHaveLength(0);
    expect(api.rateViolations).toBe(0);
  }, 60_000);

  it('falls back to a message edited in place when the Bot API has no drafts', async () => {
    api = await new FakeTelegramApi({ noDrafts: true, enforceRates: true }).start();
    const answer = words(200, 'nodraft');
    gw = await startStreamGateway('telegram', { api_root: api.apiRoot }, env(api), { replies: [{ text: answer, chunkChars: 12, paceMs: 8 }] });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'go' });
    await gw.running.gateway.idle();
    await api.waitFor(() => api!.sentTo(ADA).some((message) => message.text === answer), 'the finished answer');
    expect(api.sentTo(ADA)).toHaveLength(1);
    expect(api.rateViolations).toBe(0);
  }, 60_000);

  it('an answer longer than one message continues in the next: each part finished once, code fences valid in every edit', async () => {
    api = await new FakeTelegramApi({ enforceRates: true }).start();
    const code = Array.from({ length: 140 }, (_, i) => `print("row ${i}", ${i} * ${i})  # a line of the script`).join('\n');
    const answer = `${words(300, 'long')}\n\n\`\`\`python\n${code}\n\`\`\`\nThe end.`;
    gw = await startStreamGateway('telegram', { api_root: api.apiRoot }, env(api), { replies: [{ text: answer, chunkChars: 60, paceMs: 5 }] });
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', text: `@${api.botUsername} print it all` });
    await gw.running.gateway.idle();
    await api.waitFor(() => api!.sentTo(GROUP).some((message) => message.text.endsWith('The end.')), 'the last part');
    const sent = api.sentTo(GROUP);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const message of sent) expect(message.text.length).toBeLessThanOrEqual(4096);
    // Every send and edit the fake accepted parsed (an unbalanced <pre> would have been refused).
    for (const call of [...api.callsOf('sendMessage'), ...api.callsOf('editMessageText')]) {
      const raw = String(call.params.text);
      expect((raw.match(/<pre/g) ?? []).length).toBe((raw.match(/<\/pre>/g) ?? []).length);
    }
    const rows = sent.flatMap((message) => message.text.split('\n')).filter((line) => line.startsWith('print("row'));
    expect(rows).toHaveLength(140);
    expect(new Set(rows).size).toBe(140);
    expect(api.rateViolations).toBe(0);
  }, 90_000);

  it('a 12-part reply under flood control (429 with retry_after to every third call) arrives complete, in order, exactly once', async () => {
    api = await new FakeTelegramApi({ floodEvery: 3, floodRetryAfter: 1 }).start();
    // Twelve lines of 4,000 characters: one part each.
    const lines = Array.from({ length: 12 }, (_, i) => `Part ${i + 1}: ${String.fromCharCode(97 + i).repeat(4000)}`);
    const answer = lines.join('\n');
    gw = await startStreamGateway('telegram', { api_root: api.apiRoot }, env(api), { replies: [{ text: answer, chunkChars: 1500 }] });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'all twelve' });
    await api.waitFor(() => api!.sentTo(ADA).length >= 1, 'the first part');
    await gw.running.gateway.idle();
    const sent = api.sentTo(ADA).map((message) => message.text);
    expect(sent).toEqual(lines);
    expect(api.floods).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it.runIf(hasPython || process.env.CI === 'true')('an interrupted script is marked once in the tool progress message, which sits under the interrupted turn; nothing after the new message repeats it', async () => {
    api = await new FakeTelegramApi().start();
    const home = mkdtempSync(join(tmpdir(), 'hermes-stream-'));
    gw = await startStreamGateway('telegram', { api_root: api.apiRoot }, env(api), {
      home,
      fallback: e2eModel(home),
      overrides: { model: { stream: false }, display: { tool_progress: 'all' } },
    });
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', text: `@${api.botUsername} run the slow job [SLOW:T]` });
    const pgid = await waitForPgid(home, 'T');
    await api.waitFor(() => api!.sentTo(GROUP).some((message) => message.text.startsWith('⚙️ execute_code')), 'the progress message');
    const interruptedAt = Date.now();
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', text: `@${api.botUsername} never mind` });
    await waitForGroupGone(pgid);
    await api.waitFor(() => api!.sentTo(GROUP).some((message) => message.text.includes('echo:')), 'the new answer');
    await gw.running.gateway.idle();
    const progress = api.sentTo(GROUP).find((message) => message.text.includes('execute_code'));
    expect(progress?.at).toBeLessThan(interruptedAt);
    expect(progress?.text).toMatch(/^⚙️ execute_code: .* — ⏹ interrupted \(user sent a new message\)$/);
    expect(progress!.text.split('interrupted').length - 1).toBe(1);
    const later = api.sentTo(GROUP).filter((message) => message.at >= interruptedAt);
    expect(later.length).toBeGreaterThan(0);
    for (const message of later) expect(message.text).not.toContain('⏹');
  }, 90_000);
});
