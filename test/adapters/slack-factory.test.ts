import { describe, expect, it } from 'vitest';
import { createSlackAdapter, SlackAdapter } from '../../adapters/slack/index.js';
import { defaultConfig, deepMerge, validateConfig, type ConfigOverrides } from '../../src/config/index.js';

const config = (overrides: ConfigOverrides = {}) => validateConfig(deepMerge(defaultConfig(), overrides), 'test').config;

describe('createSlackAdapter', () => {
  it('builds nothing without SLACK_BOT_TOKEN', () => {
    expect(createSlackAdapter({ config: config(), env: {} })).toBeUndefined();
  });

  it('builds nothing when platforms.slack.enabled is false, even with a token', () => {
    expect(createSlackAdapter({ config: config({ platforms: { slack: { enabled: false } } }), env: { SLACK_BOT_TOKEN: 'xoxb-1' } })).toBeUndefined();
  });

  it('builds the adapter from the token and the platforms.slack section', () => {
    const adapter = createSlackAdapter({ config: config({ platforms: { slack: { mode: 'http' } } }), env: { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' } });
    expect(adapter).toBeInstanceOf(SlackAdapter);
    expect(adapter?.maxMessageLength).toBe(3000);
  });
});
