import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { startTelegramGateway, testClock } from '../pairing/telegram-gateway.js';

const ADA = 1001;

let api: FakeTelegramApi | undefined;
let running: RunningGateway | undefined;
let model: FakeOpenAI | undefined;
let home: string | undefined;

afterEach(async () => {
  await running?.stop();
  await model?.close();
  await api?.close();
  if (home) rmSync(home, { recursive: true, force: true });
  running = model = api = home = undefined;
});

/** The model request whose last message holds `tag`. */
const requestWith = (fake: FakeOpenAI, tag: string) => fake.requests.find((r) => JSON.stringify(r.body.messages[r.body.messages.length - 1]).includes(tag));

describe('Telegram private chats with topics (message_thread_id, is_topic_message) through grammY and the gateway', () => {
  it('keeps one session per topic and answers in the topic, the main chat staying a session of its own', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-private-topics-'));
    api = await new FakeTelegramApi().start();
    ({ running, model } = await startTelegramGateway({ home, api, telegram: {}, allowed: [ADA], clock: testClock() }));
    const fake = api;
    const inTopic = (topic: number, tag: string) => fake.waitFor(() => fake.sentTo(ADA, topic).some((sent) => sent.text.includes(tag)), `the answer to ${tag} in topic ${topic}`);
    fake.injectMessage({ chatId: ADA, userId: ADA, text: 'remember apples [T1]', threadId: 11 });
    await inTopic(11, '[T1]');
    fake.injectMessage({ chatId: ADA, userId: ADA, text: 'what did I say [T2]', threadId: 22 });
    await inTopic(22, '[T2]');
    fake.injectMessage({ chatId: ADA, userId: ADA, text: 'and here [T3]', threadId: 11 });
    await inTopic(11, '[T3]');
    fake.injectMessage({ chatId: ADA, userId: ADA, text: 'no topic [T4]' });
    await fake.waitFor(() => fake.sentTo(ADA).some((sent) => sent.text.includes('[T4]') && sent.message_thread_id === undefined), 'the answer in the main chat');
    const history = (tag: string) => JSON.stringify(requestWith(model!, tag)!.body.messages);
    expect(history('[T2]')).not.toContain('[T1]');
    expect(history('[T3]')).toContain('[T1]');
    expect(history('[T3]')).not.toContain('[T2]');
    expect(history('[T4]')).not.toContain('[T1]');
    // Every answer went to the topic it was asked in, none to another.
    expect(fake.sentTo(ADA, 11).map((sent) => sent.text).join(' ')).not.toContain('[T2]');
    expect(fake.sentTo(ADA, 22).map((sent) => sent.text).join(' ')).not.toContain('[T1]');
  }, 90_000);
});
