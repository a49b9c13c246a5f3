import { isChatSection, type HermesConfig } from '../../config/index.js';
import type { PlatformSetup, TokenCheck } from '../../gateway/platform.js';
import type { Asker } from './ask.js';

export type { TokenCheck } from '../../gateway/platform.js';

/** A chat platform with tokens, as the registry lists it (`adapters/index.ts`). */
export interface ChatPlatform {
  name: string;
  setup: PlatformSetup;
}

/** What a platform step writes: tokens for .env, ids for the allow-list. */
export interface PlatformChoice {
  platform: string;
  env: Record<string, string>;
  allow: string[];
  /** What the platform said about the tokens. */
  check: TokenCheck;
}

/** A platform's section of the config (`platforms.<name>`), the same object; undefined for a name the config lacks. */
export function platformSection(config: HermesConfig, name: string): { enabled: boolean; allowed_users: string[] } | undefined {
  const section = Object.entries(config.platforms).find(([key]) => key === name)?.[1];
  return isChatSection(section) ? section : undefined;
}

/** The chat platforms, from the registry (loaded when asked: it brings the platforms' SDKs). */
export async function chatPlatforms(): Promise<ChatPlatform[]> {
  const { chatPlatforms: listed } = await import('../../../adapters/index.js');
  return listed();
}

/** One platform on a terminal: the tokens (checked), then who may talk to the bot. */
export async function askPlatform(ask: Asker, platform: ChatPlatform, config: HermesConfig, env: NodeJS.ProcessEnv): Promise<PlatformChoice | undefined> {
  const { label } = platform.setup;
  ask.say(`\n== ${label} ==  (the README's "${label}" section has the steps to make the bot)`);
  const names = platform.setup.tokenNames(config);
  const ready = names.every((name) => env[name]);
  if (!(await ask.yes(ready ? `${label} has its tokens; change them or its allow-list?` : `Set up ${label}?`, false))) return undefined;
  for (;;) {
    const tokens: Record<string, string> = {};
    for (const name of names) {
      const typed = await ask.secret(`${name} (${platform.setup.tokenHelp[name] ?? 'see the README'})`, Boolean(env[name]));
      tokens[name] = typed || env[name] || '';
    }
    ask.say(`Checking with ${label}…`);
    const check = await platform.setup.checkTokens(tokens, config, true);
    ask.say(`${check.ok ? 'ok' : 'failed'}: ${check.detail}`);
    if (!check.ok) {
      if (await ask.yes('Type the tokens again?', true)) continue;
      return undefined;
    }
    const allow = await askAllowed(ask, platform, tokens, check, config);
    const changed = Object.fromEntries(Object.entries(tokens).filter(([name, value]) => value !== env[name]));
    return { platform: platform.name, env: changed, allow, check };
  }
}

/** The ids to allow: the person the platform names, when they say it is them, and any typed. */
async function askAllowed(ask: Asker, platform: ChatPlatform, tokens: Record<string, string>, check: TokenCheck, config: HermesConfig): Promise<string[]> {
  const { setup } = platform;
  const allowed = platformSection(config, platform.name)?.allowed_users ?? [];
  if (allowed.length > 0) ask.say(`Allowed now: ${allowed.join(', ')}`);
  let person = check.person;
  if (!person && setup.askForPerson) {
    ask.say(setup.askForPerson.prompt(check));
    await ask.text('Sent it?');
    person = await setup.askForPerson.find(tokens, config);
    if (!person) ask.say('No message reached the bot yet (or it has a webhook set).');
  }
  const ids: string[] = [];
  if (person && !allowed.includes(person.id) && (await ask.yes(`Allow ${person.name} (id ${person.id}), ${setup.personRole}?`, true))) {
    ids.push(person.id);
  }
  const typed = await ask.text(`Other ids to allow, comma-separated (${setup.ownIdHelp}; Enter for none)`);
  ids.push(...typed.split(',').map((id) => id.trim()).filter((id) => id !== '' && !ids.includes(id)));
  return ids;
}

/** `--<platform>-user`: ids, and `auto` for the person the platform names (a failure when it names none). */
export function idsFromFlag(platform: ChatPlatform, values: readonly string[], check: TokenCheck): string[] {
  const ids: string[] = [];
  for (const value of values.flatMap((entry) => entry.split(',')).map((entry) => entry.trim()).filter(Boolean)) {
    if (value !== 'auto') ids.push(value);
    else if (check.person) ids.push(check.person.id);
    else throw new Error(`setup: --${platform.name}-user auto: ${platform.setup.noPerson}; or pass ${platform.setup.ownIdHelp}`);
  }
  return [...new Set(ids)];
}
