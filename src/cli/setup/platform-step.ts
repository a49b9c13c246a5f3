import type { HermesConfig } from '../../config/index.js';
import type { Asker } from './ask.js';
import { checkDiscord, checkSlack, checkTelegram, findTelegramSender, type TokenCheck } from './platform-checks.js';

export type PlatformName = 'telegram' | 'slack' | 'discord';
export const PLATFORM_NAMES: readonly PlatformName[] = ['telegram', 'slack', 'discord'];

const LABELS: Record<PlatformName, string> = { telegram: 'Telegram', slack: 'Slack', discord: 'Discord' };

/** What a platform step writes: tokens for .env, ids for the allow-list. */
export interface PlatformChoice {
  platform: PlatformName;
  env: Record<string, string>;
  allow: string[];
  /** What the platform said about the tokens. */
  check: TokenCheck;
}

/** The tokens a platform takes, in the order they are asked. */
export function tokenNames(platform: PlatformName, config: HermesConfig): string[] {
  if (platform === 'telegram') return ['TELEGRAM_BOT_TOKEN'];
  if (platform === 'discord') return ['DISCORD_BOT_TOKEN'];
  return config.platforms.slack.mode === 'socket' ? ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'] : ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET'];
}

/**
 * Asks the platform whether the tokens work (getMe, auth.test, the bot's own user). `findPerson`
 * also looks for the person to allow (Telegram reads the waiting messages for it).
 */
export function checkTokens(platform: PlatformName, tokens: Record<string, string>, config: HermesConfig, findPerson = true): Promise<TokenCheck> {
  if (platform === 'telegram') return checkTelegram(tokens.TELEGRAM_BOT_TOKEN, config, findPerson);
  if (platform === 'discord') return checkDiscord(tokens.DISCORD_BOT_TOKEN, config);
  return checkSlack({ bot: tokens.SLACK_BOT_TOKEN, app: tokens.SLACK_APP_TOKEN }, config);
}

const WHERE: Record<string, string> = {
  TELEGRAM_BOT_TOKEN: 'the token @BotFather gave you',
  SLACK_BOT_TOKEN: 'Bot User OAuth Token, xoxb-…: OAuth & Permissions',
  SLACK_APP_TOKEN: 'app-level token, xapp-…: Basic Information → App-Level Tokens',
  SLACK_SIGNING_SECRET: 'Basic Information → App Credentials → Signing Secret',
  DISCORD_BOT_TOKEN: 'Developer Portal → your application → Bot → Reset Token',
};

/** How a person finds their own id when the platform cannot tell us. */
const OWN_ID: Record<PlatformName, string> = {
  telegram: 'your numeric user id (message @userinfobot, or send the bot a message and run setup again)',
  slack: 'your member id (your profile → ⋮ → Copy member ID, U…)',
  discord: 'your user id (Settings → Advanced → Developer Mode on, then right-click your name → Copy User ID)',
};

/** One platform on a terminal: the tokens (checked), then who may talk to the bot. */
export async function askPlatform(ask: Asker, platform: PlatformName, config: HermesConfig, env: NodeJS.ProcessEnv): Promise<PlatformChoice | undefined> {
  const label = LABELS[platform];
  ask.say(`\n== ${label} ==  (the README's "${label}" section has the steps to make the bot)`);
  const names = tokenNames(platform, config);
  const ready = names.every((name) => env[name]);
  if (!(await ask.yes(ready ? `${label} has its tokens; change them or its allow-list?` : `Set up ${label}?`, false))) return undefined;
  for (;;) {
    const tokens: Record<string, string> = {};
    for (const name of names) {
      const typed = await ask.secret(`${name} (${WHERE[name]})`, Boolean(env[name]));
      tokens[name] = typed || env[name] || '';
    }
    ask.say(`Checking with ${label}…`);
    const check = await checkTokens(platform, tokens, config);
    ask.say(`${check.ok ? 'ok' : 'failed'}: ${check.detail}`);
    if (!check.ok) {
      if (await ask.yes('Type the tokens again?', true)) continue;
      return undefined;
    }
    const allow = await askAllowed(ask, platform, tokens, check, config);
    const changed = Object.fromEntries(Object.entries(tokens).filter(([name, value]) => value !== env[name]));
    return { platform, env: changed, allow, check };
  }
}

/** The ids to allow: the person the platform names, when they say it is them, and any typed. */
async function askAllowed(ask: Asker, platform: PlatformName, tokens: Record<string, string>, check: TokenCheck, config: HermesConfig): Promise<string[]> {
  const allowed = config.platforms[platform].allowed_users;
  if (allowed.length > 0) ask.say(`Allowed now: ${allowed.join(', ')}`);
  let person = check.person;
  if (!person && platform === 'telegram') {
    ask.say(`Send the bot any message from your own Telegram account now (${check.detail}), then press Enter.`);
    await ask.text('Sent it?');
    person = await findTelegramSender(tokens.TELEGRAM_BOT_TOKEN, config);
    if (!person) ask.say('No message reached the bot yet (or it has a webhook set).');
  }
  const ids: string[] = [];
  if (person && !allowed.includes(person.id) && (await ask.yes(`Allow ${person.name} (id ${person.id})${platform === 'discord' ? ', who owns the application' : ', who wrote last'}?`, true))) {
    ids.push(person.id);
  }
  const typed = await ask.text(`Other ids to allow, comma-separated (${OWN_ID[platform]}; Enter for none)`);
  ids.push(...typed.split(',').map((id) => id.trim()).filter((id) => id !== '' && !ids.includes(id)));
  return ids;
}

/** `--<platform>-user`: ids, and `auto` for the person the platform names (a failure when it names none). */
export function idsFromFlag(platform: PlatformName, values: readonly string[], check: TokenCheck): string[] {
  const ids: string[] = [];
  for (const value of values.flatMap((entry) => entry.split(',')).map((entry) => entry.trim()).filter(Boolean)) {
    if (value !== 'auto') ids.push(value);
    else if (check.person) ids.push(check.person.id);
    else {
      throw new Error(
        `setup: --${platform}-user auto: ${platform === 'telegram' ? 'no message has reached the bot yet: send it one, then run setup again' : `${LABELS[platform]} does not say who you are`}; or pass ${OWN_ID[platform]}`,
      );
    }
  }
  return [...new Set(ids)];
}
