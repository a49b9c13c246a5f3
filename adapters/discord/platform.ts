import type { Platform, PlatformSetup } from '../../src/gateway/platform.js';
import { tokenReadiness } from '../token-readiness.js';
import { DISCORD_SETUP_FLAGS } from './setup-flags.js';
import type { BuildAdaptersOptions } from '../index.js';
import { createDiscordAdapter } from './index.js';
import { DISCORD_THREAD } from './thread-ref.js';
import { checkDiscord } from './token-check.js';
import { discordConfig } from './config.js';

const TOKEN = 'DISCORD_BOT_TOKEN';

const SETUP: PlatformSetup = {
  label: 'Discord',
  flags: DISCORD_SETUP_FLAGS,
  tokenNames: () => [TOKEN],
  tokenHelp: { [TOKEN]: 'Developer Portal → your application → Bot → Reset Token' },
  ownIdHelp: 'your user id (Settings → Advanced → Developer Mode on, then right-click your name → Copy User ID)',
  personRole: 'who owns the application',
  noPerson: 'Discord does not say who you are',
  checkTokens: (tokens, config) => checkDiscord(tokens[TOKEN] ?? '', config),
};

/** Discord as one module: a bot token; the person to allow is the application's owner. */
export const DISCORD: Platform<BuildAdaptersOptions> = {
  name: 'discord',
  thread: DISCORD_THREAD,
  create: (options) => createDiscordAdapter(options),
  setup: SETUP,
  readiness: (config, env) => tokenReadiness(SETUP, discordConfig(config), config, env),
};
