import { describe, expect, it } from 'vitest';
import { createDiscordAdapter, DiscordAdapter } from '../../adapters/discord/index.js';
import { defaultConfig, deepMerge, validateConfig, type ConfigOverrides } from '../../src/config/index.js';

const config = (overrides: ConfigOverrides = {}) => validateConfig(deepMerge(defaultConfig(), overrides), 'test').config;

describe('createDiscordAdapter', () => {
  it('builds nothing without DISCORD_BOT_TOKEN', () => {
    expect(createDiscordAdapter({ config: config(), env: {} })).toBeUndefined();
  });

  it('builds nothing when platforms.discord.enabled is false, even with a token', () => {
    expect(createDiscordAdapter({ config: config({ platforms: { discord: { enabled: false } } }), env: { DISCORD_BOT_TOKEN: 't' } })).toBeUndefined();
  });

  it('builds the adapter from the token, splitting at 2,000 characters', () => {
    const adapter = createDiscordAdapter({ config: config(), env: { DISCORD_BOT_TOKEN: 't' } });
    expect(adapter).toBeInstanceOf(DiscordAdapter);
    expect(adapter?.maxMessageLength).toBe(2000);
  });
});
