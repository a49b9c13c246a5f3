import type { Platform, PlatformSetup } from '../../src/gateway/platform.js';
import { tokenReadiness } from '../token-readiness.js';
import { TELEGRAM_SETUP_FLAGS } from './setup-flags.js';
import type { BuildAdaptersOptions } from '../index.js';
import { createTelegramAdapter } from './adapter.js';
import { TELEGRAM_THREAD } from './thread-ref.js';
import { checkTelegram, findTelegramSender } from './token-check.js';
import { telegramConfig } from './config.js';

const TOKEN = 'TELEGRAM_BOT_TOKEN';

const SETUP: PlatformSetup = {
  label: 'Telegram',
  flags: TELEGRAM_SETUP_FLAGS,
  tokenNames: () => [TOKEN],
  tokenHelp: { [TOKEN]: 'the token @BotFather gave you' },
  ownIdHelp: 'your numeric user id (message @userinfobot, or send the bot a message and run setup again)',
  personRole: 'who wrote last',
  noPerson: 'no message has reached the bot yet: send it one, then run setup again',
  checkTokens: (tokens, config, findPerson) => checkTelegram(tokens[TOKEN] ?? '', config, findPerson),
  askForPerson: {
    prompt: (check) => `Send the bot any message from your own Telegram account now (${check.detail}), then press Enter.`,
    find: (tokens, config) => findTelegramSender(tokens[TOKEN] ?? '', config),
  },
};

/** Telegram as one module: a bot token; the person to allow is whoever wrote to the bot last. */
export const TELEGRAM: Platform<BuildAdaptersOptions> = {
  name: 'telegram',
  thread: TELEGRAM_THREAD,
  create: (options) => createTelegramAdapter(options),
  setup: SETUP,
  readiness: (config, env) => tokenReadiness(SETUP, telegramConfig(config), config, env),
};
