import { spawnSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/environments/index.js';
import { FakeSlack, slackMessage } from '../fakes/slack-server.js';
import { e2eModel, waitForGroupGone, waitForPgid, requestFor } from '../fakes/slack-e2e-model.js';
import { removeHome, startStreamGateway, words, type StreamGateway } from '../fakes/stream-harness.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * Slack through the real gateway, agent and Bolt (Socket Mode) against the fake Slack: a
 * reply in a thread streams as a chat stream finished in place; `!stop` works in a thread,
 * where Slack keeps `/` words for itself; `/hermes new` resets.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;

let slack: FakeSlack | undefined;
let gw: StreamGateway | undefined;

beforeAll(async () => {
  await Promise.all([import('../../src/agent/index.js'), import('../../adapters/index.js')]);
}, 120_000);

afterEach(async () => {
  await gw?.stop();
  if (gw) removeHome(gw.home);
  await slack?.close();
  gw = slack = undefined;
});

async function start(options: Parameters<typeof startStreamGateway>[3] = {}): Promise<void> {
  slack = await new FakeSlack().listen();
  const env = { ...process.env, SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken, SLACK_ALLOWED_USERS: 'U1' };
  gw = await startStreamGateway('slack', { mode: 'socket', api_url: slack.apiUrl }, env, options);
}

const mention = (text: string, ts: string) =>
  slack!.eventBody({ type: 'app_mention', channel: 'C1', user: 'U1', text: `<@${slack!.botUserId}> ${text}`, ts });

describe('Slack: streamed replies and commands', () => {
  it('a 400-word answer in a thread streams as one chat stream, stopped with the model text, within the rate', async () => {
    const answer = words(400, 'slack');
    await start({ replies: [{ text: answer, chunkChars: 12, paceMs: 8 }] });
    slack!.enforceRates = true;
    const thread = slack!.nextTs();
    await slack!.deliverSocket(mention('tell me a story', thread));
    await slack!.waitForCall('chat.stopStream');
    await gw!.running.gateway.idle();
    const started = slack!.callsTo('chat.startStream');
    expect(started).toHaveLength(1);
    expect(started[0].params).toMatchObject({ channel: 'C1', thread_ts: thread, recipient_user_id: 'U1', recipient_team_id: slack!.team });
    expect(slack!.callsTo('chat.appendStream').length).toBeGreaterThan(0);
    const message = slack!.messages.find((m) => m.ts === started[0].params.ts || slack!.streams.has(m.ts));
    expect(message?.text).toBe(answer);
    expect(slack!.streams.get(message!.ts)?.open).toBe(false);
    // No second copy: the stream is the answer.
    expect(slack!.callsTo('chat.postMessage').filter((call) => call.params.thread_ts === thread)).toHaveLength(0);
    expect(slack!.rateViolations).toBe(0);
    // The thread status said it was working, and was cleared.
    expect(slack!.statuses.at(0)?.status).toBe('is working…');
    await slack!.waitForCall('assistant.threads.setStatus', (call) => call.params.status === '');
  }, 60_000);

  it('without chat streams the answer is one message posted once and edited in place', async () => {
    const answer = words(300, 'nostream');
    await start({ replies: [{ text: answer, chunkChars: 12, paceMs: 8 }] });
    slack!.noStreams = true;
    slack!.enforceRates = true;
    const thread = slack!.nextTs();
    await slack!.deliverSocket(mention('tell me', thread));
    await slack!.waitForCall('chat.update', (call) => String(call.params.text) === answer);
    await gw!.running.gateway.idle();
    const posts = slack!.callsTo('chat.postMessage').filter((call) => call.params.thread_ts === thread);
    expect(posts).toHaveLength(1);
    expect(slack!.messages.find((m) => m.ts === slack!.messages.find((x) => x.thread_ts === thread && x.user === slack!.botUserId)?.ts)?.text).toBe(answer);
    expect(slack!.rateViolations).toBe(0);
  }, 60_000);

  it.runIf(hasPython || process.env.CI === 'true')('!stop in a thread stops the running script (its process group is gone); /hermes new resets the session', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-stream-'));
    await start({ home, fallback: e2eModel(home), overrides: { model: { stream: false } } });
    const thread = slack!.nextTs();
    await slack!.deliverSocket(mention('run the slow job [SLOW:K]', thread));
    const pgid = await waitForPgid(home, 'K');
    await slack!.deliverSocket(slack!.eventBody(slackMessage({ channel: 'C1', user: 'U1', text: '!stop', ts: slack!.nextTs(), thread_ts: thread })));
    await slack!.waitForCall('chat.postMessage', (call) => call.params.thread_ts === thread && call.params.text === 'Stopped.');
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);

    // /hermes new from the channel acts on the user's thread there.
    await slack!.deliverSocket(slack!.eventBody(slackMessage({ channel: 'C1', user: 'U1', text: 'remember the word PELICAN', ts: slack!.nextTs(), thread_ts: thread })));
    await slack!.waitForCall('chat.postMessage', (call) => call.params.thread_ts === thread && String(call.params.text).includes('PELICAN'));
    await slack!.deliverSlashCommand({ command: '/hermes', text: 'new', user: 'U1', channel: 'C1' });
    await slack!.waitForCall('chat.postMessage', (call) => call.params.thread_ts === thread && String(call.params.text).startsWith('Started a new session'));
    await slack!.deliverSocket(slack!.eventBody(slackMessage({ channel: 'C1', user: 'U1', text: 'fresh start', ts: slack!.nextTs(), thread_ts: thread })));
    await slack!.waitForCall('chat.postMessage', (call) => call.params.thread_ts === thread && String(call.params.text).includes('fresh start'));
    expect(JSON.stringify(requestFor(gw!.model.requests, 'fresh start')?.body.messages)).not.toContain('PELICAN');

    // Without a command, /hermes answers with how to use it, to the user only.
    await slack!.deliverSlashCommand({ command: '/hermes', text: '', user: 'U1', channel: 'C1' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(String(slack!.responses.at(-1)?.text)).toContain('!stop');
  }, 90_000);
});
