import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DISCORD_THREAD } from '../../adapters/discord/thread-ref.js';
import { SLACK_THREAD } from '../../adapters/slack/thread-ref.js';
import { TELEGRAM_THREAD } from '../../adapters/telegram/thread-ref.js';
import { WEB_THREAD } from '../../adapters/web/thread-ref.js';
import { Gateway, OutboxStore, type InboundMessage, type ReplyTarget, type ThreadRef } from '../../src/gateway/index.js';
import { FakeAgent, RecordingAdapter, testConfig, until } from '../gateway/helpers.js';

interface Case {
  platform: string;
  ref: ThreadRef;
  target: ReplyTarget & Record<string, unknown>;
  /** What the database keeps of `target` (Discord leaves a slash command's interaction out). */
  stored?: ReplyTarget & Record<string, unknown>;
  /** Targets of this platform's key that must not read. */
  malformed: unknown[];
}

const CASES: Case[] = [
  {
    platform: 'telegram',
    ref: TELEGRAM_THREAD,
    target: { threadKey: 'telegram:-100123:7', chatId: -100123, messageThreadId: 7, replyToMessageId: 41, messageId: 41 },
    malformed: [{ threadKey: 'telegram:5', chatId: '5' }, { threadKey: 'telegram:5' }, { threadKey: 'slack:T:C', chatId: 5 }, { threadKey: 'telegram:5', chatId: 5.5 }],
  },
  {
    platform: 'slack',
    ref: SLACK_THREAD,
    target: { threadKey: 'slack:T1:C1:1700.1', channel: 'C1', threadTs: '1700.1', messageTs: '1700.2', userId: 'U1', teamId: 'T1' },
    malformed: [{ threadKey: 'slack:T1:C1', channel: 'C1' }, { threadKey: 'slack:T1:C1', channel: 7, messageTs: '1' }, { threadKey: 'web:x', channel: 'C1', messageTs: '1' }],
  },
  {
    platform: 'discord',
    ref: DISCORD_THREAD,
    target: { threadKey: 'discord:G1:C1', channelId: 'C1', interactionId: 'I1', interactionToken: 'tok', interactionExpiresAt: 1, reactTo: { channelId: 'C0', messageId: 'M1' } },
    stored: { threadKey: 'discord:G1:C1', channelId: 'C1', reactTo: { channelId: 'C0', messageId: 'M1' } },
    malformed: [{ threadKey: 'discord:G1:C1' }, { threadKey: 'discord:G1:C1', channelId: 'C1', reactTo: { channelId: 'C0' } }, { threadKey: 'telegram:1', channelId: 'C1' }],
  },
  {
    platform: 'web',
    ref: WEB_THREAD,
    target: { threadKey: 'web:t-abc123', threadId: 't-abc123' },
    malformed: [{ threadKey: 'web:t-abc123', threadId: 't-other' }, { threadKey: 'web:../x', threadId: '../x' }, { threadKey: 'web:t-abc123' }],
  },
];

/** A pino logger whose lines the test reads. */
function recordingLogger() {
  const lines: Array<{ level: number; msg: string; from?: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

/** Records what the gateway sends, reading its targets with a real platform's ThreadRef. */
class PlatformRecorder extends RecordingAdapter {
  constructor(
    name: string,
    override readonly thread: ThreadRef,
  ) {
    super(name);
  }
}

const ERROR = 50;
let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function gatewayFor(each: Case, outbox: OutboxStore) {
  const { logger, lines } = recordingLogger();
  const adapter = new PlatformRecorder(each.platform, each.ref);
  const gateway = new Gateway({ agent: new FakeAgent(), config: testConfig(), env: { GATEWAY_ALLOW_ALL_USERS: 'true' }, outbox, logger });
  gateway.register(adapter);
  cleanup.push(() => gateway.stop());
  return { gateway, adapter, lines };
}

function tempOutbox(): OutboxStore {
  const folder = mkdtempSync(join(tmpdir(), 'hermes-thread-ref-'));
  const outbox = OutboxStore.open(join(folder, 'state.db'));
  cleanup.push(() => rmSync(folder, { recursive: true, force: true }));
  cleanup.push(() => outbox.close());
  return outbox;
}

function inbound(each: Case, replyTo: unknown): InboundMessage {
  const threadKey = each.target.threadKey;
  // The shape a passed message has after JSON: the reply target is whatever came.
  const passed: unknown = JSON.parse(JSON.stringify({ platform: each.platform, threadKey, chat: { id: 'c', type: 'dm' }, user: { id: 'u1' }, text: 'hello', messageId: 'm1', replyTo }));
  const parsed = passed as InboundMessage;
  return parsed;
}

describe.each(CASES)('the $platform ThreadRef', (each) => {
  it('round-trips its reply target through the text the database keeps', () => {
    const text = each.ref.encode(each.target);
    expect(typeof text).toBe('string');
    expect(each.ref.decode(text)).toEqual(each.stored ?? each.target);
    // A passed message's target arrives parsed: it reads whole.
    expect(each.ref.decode(JSON.parse(JSON.stringify(each.target)))).toEqual(each.target);
  });

  it('reads nothing from a malformed reference', () => {
    for (const bad of [...each.malformed, 'not json {', null, 42, []]) {
      expect(each.ref.decode(typeof bad === 'string' ? bad : JSON.stringify(bad))).toBeUndefined();
      expect(each.ref.decode(bad)).toBeUndefined();
    }
  });

  it('refuses a malformed reference coming back from the database with a logged error, and still delivers the good one', async () => {
    const outbox = tempOutbox();
    for (const bad of each.malformed) {
      const id = outbox.beginTurn({ kind: 'reply', platform: each.platform, threadKey: each.target.threadKey, target: JSON.stringify(bad), input: '' });
      outbox.addPart(id, 'never sent', 'final');
    }
    const good = outbox.beginTurn({ kind: 'reply', platform: each.platform, threadKey: each.target.threadKey, target: each.ref.encode(each.target), input: '' });
    outbox.addPart(good, 'left over', 'final');
    const { gateway, adapter, lines } = await gatewayFor(each, outbox);
    await gateway.start();
    await until(() => adapter.sent.length === 1, 'the good reply');
    expect(adapter.sent.map((sent) => sent.text)).toEqual(['left over']);
    const refused = lines.filter((line) => line.level === ERROR && line.msg.includes('thread reference'));
    expect(refused).toHaveLength(each.malformed.length);
    expect(refused[0]!.from).toMatch(/^outbox turn /);
  });

  it('refuses a malformed reference another instance passed (the router path) with a logged error, and takes a good one', async () => {
    const { gateway, adapter, lines } = await gatewayFor(each, tempOutbox());
    await gateway.start();
    for (const bad of each.malformed) await gateway.dispatchPassed(inbound(each, bad), undefined);
    await gateway.idle();
    expect(adapter.sent).toEqual([]);
    expect(lines.filter((line) => line.level === ERROR && line.from === 'a message another instance passed')).toHaveLength(each.malformed.length);
    await gateway.dispatchPassed(inbound(each, each.target), undefined);
    await until(() => adapter.sent.length === 1, 'the answer to the good message');
    expect(adapter.sent[0]!.threadKey).toBe(each.target.threadKey);
  });
});
