import type { PlatformSetupFlags } from '../../src/gateway/platform.js';

/** `hermes setup`'s Discord flags. */
export const DISCORD_SETUP_FLAGS: PlatformSetupFlags = {
  platform: 'discord',
  tokens: [{ flag: '--discord-token <token>', env: 'DISCORD_BOT_TOKEN', description: 'DISCORD_BOT_TOKEN (checked with Discord)' }],
  user: { flag: '--discord-user <id>', description: 'allow this Discord user id; "auto" allows the application\'s owner (repeatable)' },
};
