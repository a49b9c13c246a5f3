import { describe, expect, it } from 'vitest';
import { AccessPolicy, Gateway } from '../../src/gateway/index.js';
import { FakeAgent, RecordingAdapter, message, testConfig } from './helpers.js';

describe('AccessPolicy', () => {
  it('allows nobody when no allow-list and no allow-all is set', () => {
    const policy = new AccessPolicy(testConfig(), {});
    expect(policy.isAllowed('telegram', '42')).toBe(false);
    expect(policy.isAllowed('slack', 'U1')).toBe(false);
  });

  it('allows the users of platforms.<name>.allowed_users, on that platform only', () => {
    const policy = new AccessPolicy(testConfig({ platforms: { telegram: { allowed_users: ['42'] } } }), {});
    expect(policy.isAllowed('telegram', '42')).toBe(true);
    expect(policy.isAllowed('telegram', '43')).toBe(false);
    expect(policy.isAllowed('discord', '42')).toBe(false);
  });

  it('reads <PLATFORM>_ALLOWED_USERS as comma-separated ids', () => {
    const policy = new AccessPolicy(testConfig(), {
      TELEGRAM_ALLOWED_USERS: ' 1, 2 ,3',
      SLACK_ALLOWED_USERS: 'U9',
      DISCORD_ALLOWED_USERS: '77',
    });
    expect(['1', '2', '3'].map((id) => policy.isAllowed('telegram', id))).toEqual([true, true, true]);
    expect(policy.isAllowed('slack', 'U9')).toBe(true);
    expect(policy.isAllowed('discord', '77')).toBe(true);
    expect(policy.isAllowed('telegram', 'U9')).toBe(false);
  });

  it('allows everyone with GATEWAY_ALLOW_ALL_USERS=true', () => {
    expect(new AccessPolicy(testConfig(), { GATEWAY_ALLOW_ALL_USERS: 'true' }).isAllowed('discord', 'anyone')).toBe(true);
    expect(new AccessPolicy(testConfig(), { GATEWAY_ALLOW_ALL_USERS: 'false' }).isAllowed('discord', 'anyone')).toBe(false);
  });

  it('needs no allow-list for the local web and console platforms', () => {
    const policy = new AccessPolicy(testConfig(), {});
    expect(policy.isAllowed('web', 'browser')).toBe(true);
    expect(policy.isAllowed('console', 'me')).toBe(true);
  });
});

describe('Gateway authorization', () => {
  it('answers a refused user once with their id and how to be allowed, and never runs their messages', async () => {
    const agent = new FakeAgent();
    const adapter = new RecordingAdapter('telegram');
    const gateway = new Gateway({ agent, config: testConfig(), env: {} });
    gateway.register(adapter);
    await gateway.start();
    await gateway.dispatch(message('hello', { platform: 'telegram', user: '555' }));
    await gateway.dispatch(message('hello again', { platform: 'telegram', user: '555' }));
    await gateway.dispatch(message('/new', { platform: 'telegram', user: '555' }));
    await gateway.idle();
    expect(agent.turns).toHaveLength(0);
    expect(agent.newSessions).toHaveLength(0);
    expect(adapter.sent).toHaveLength(1);
    expect(adapter.sent[0].text).toContain('555');
    expect(adapter.sent[0].text).toContain('TELEGRAM_ALLOWED_USERS');
    expect(adapter.sent[0].text).toContain('platforms.telegram.allowed_users');
    await gateway.stop();
  });
});
