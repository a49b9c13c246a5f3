import type { PlatformSetupFlags } from '../../src/gateway/platform.js';

/** `hermes setup`'s Telegram flags. */
export const TELEGRAM_SETUP_FLAGS: PlatformSetupFlags = {
  platform: 'telegram',
  tokens: [{ flag: '--telegram-token <token>', env: 'TELEGRAM_BOT_TOKEN', description: 'TELEGRAM_BOT_TOKEN (checked with getMe)' }],
  user: { flag: '--telegram-user <id>', description: 'allow this Telegram user id; "auto" allows whoever last wrote to the bot (repeatable)' },
};
