import type { Platform, PlatformSetup } from '../../src/gateway/platform.js';
import { tokenReadiness } from '../token-readiness.js';
import { SLACK_SETUP_FLAGS } from './setup-flags.js';
import type { BuildAdaptersOptions } from '../index.js';
import { createSlackAdapter } from './index.js';
import { SLACK_THREAD } from './thread-ref.js';
import { checkSlack } from './token-check.js';
import { slackConfig } from './config.js';

const SETUP: PlatformSetup = {
  label: 'Slack',
  flags: SLACK_SETUP_FLAGS,
  tokenNames: (config) => (slackConfig(config).mode === 'socket' ? ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'] : ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET']),
  tokenHelp: {
    SLACK_BOT_TOKEN: 'Bot User OAuth Token, xoxb-…: OAuth & Permissions',
    SLACK_APP_TOKEN: 'app-level token, xapp-…: Basic Information → App-Level Tokens',
    SLACK_SIGNING_SECRET: 'Basic Information → App Credentials → Signing Secret',
  },
  ownIdHelp: 'your member id (your profile → ⋮ → Copy member ID, U…)',
  personRole: 'who wrote last',
  noPerson: 'Slack does not say who you are',
  checkTokens: (tokens, config) => checkSlack({ bot: tokens.SLACK_BOT_TOKEN ?? '', app: tokens.SLACK_APP_TOKEN }, config),
};

/** Slack as one module: a bot token, and an app token (Socket Mode) or a signing secret (HTTP). */
export const SLACK: Platform<BuildAdaptersOptions> = {
  name: 'slack',
  thread: SLACK_THREAD,
  create: (options) => createSlackAdapter(options),
  setup: SETUP,
  readiness: (config, env) => tokenReadiness(SETUP, slackConfig(config), config, env, ` (${slackConfig(config).mode} mode)`),
};
