import type { PlatformSetupFlags } from '../../src/gateway/platform.js';

/** `hermes setup`'s Slack flags: the bot token, then the app token (Socket Mode) or the signing secret (HTTP). */
export const SLACK_SETUP_FLAGS: PlatformSetupFlags = {
  platform: 'slack',
  tokens: [
    { flag: '--slack-bot-token <token>', env: 'SLACK_BOT_TOKEN', description: 'SLACK_BOT_TOKEN, xoxb-… (checked with auth.test)' },
    { flag: '--slack-app-token <token>', env: 'SLACK_APP_TOKEN', description: 'SLACK_APP_TOKEN, xapp-… (Socket Mode)' },
    { flag: '--slack-signing-secret <secret>', env: 'SLACK_SIGNING_SECRET', description: 'SLACK_SIGNING_SECRET (HTTP mode)' },
  ],
  user: { flag: '--slack-user <id>', description: 'allow this Slack member id (repeatable)' },
};
