import type { HermesConfig } from '../config/index.js';
import { isChatSection } from '../config/index.js';

/** A platform's settings about people and group chats (config: `platforms.<name>`), compiled. */
export interface PeopleSettings {
  dmPolicy: 'allowlist' | 'pairing' | 'open';
  requireMention: boolean;
  wakeWords: readonly RegExp[];
  allowedChats: readonly string[];
  groupSessions: 'per_thread' | 'per_user';
  allowBots: boolean;
}

/** What a platform without these keys (the local web chat) gets: the closed defaults. */
const DEFAULTS: PeopleSettings = { dmPolicy: 'allowlist', requireMention: true, wakeWords: [], allowedChats: [], groupSessions: 'per_thread', allowBots: false };

/** The people settings of `platform` in `config` (read at each message: a reload applies at once). */
export function peopleSettings(config: HermesConfig, platform: string): PeopleSettings {
  const section = Object.entries(config.platforms).find(([name]) => name === platform)?.[1];
  if (!isChatSection(section)) return DEFAULTS;
  return {
    dmPolicy: section.dm_policy,
    requireMention: section.require_mention,
    // Validated at load (schema.ts): each compiles.
    wakeWords: section.wake_words.map((source) => new RegExp(source, 'i')),
    allowedChats: section.allowed_chats,
    groupSessions: section.group_sessions,
    allowBots: section.allow_bots,
  };
}
