import { z } from 'zod';
import { bool, ids, oneOf, pattern, text } from './fields.js';

/*
 * The keys every platform section (`platforms.<name>`) shares. Each platform's own schema
 * (adapters/<name>/config.ts) spreads these and adds its keys; the core reads only these.
 */

/** A channel's own settings (`platforms.<name>.channels.<id>`): its model and system prompt; empty: the defaults. */
export const channelSettings = () =>
  z
    .record(
      text(),
      z.strictObject({ model: text().default(''), system_prompt: text().default('') }, { error: 'expected { model, system_prompt }' }),
      { error: 'expected a map of channel ids to { model, system_prompt }' },
    )
    .default({});

/** Who may talk on a platform that others reach, and how it answers in group chats (src/gateway/access.ts, group-policy.ts). */
export const peopleKeys = () => ({
  /** A stranger's direct message: refused (allowlist), given a pairing code (pairing), or answered (open). */
  dm_policy: oneOf(['allowlist', 'pairing', 'open'] as const).default('allowlist'),
  /** Who alone may /sethome, /model <name>, /reload-mcp, /pair and answer others' approvals; empty: the allow-listed users have the commands (src/config/admins.ts). */
  admins: ids().default([]),
  require_mention: bool().default(true),
  /** Case-insensitive regular expressions; a group message matching one is answered as if the bot were mentioned. */
  wake_words: z.array(pattern(), { error: 'expected a list of regular expressions' }).default([]),
  /** Group chats (chat or channel ids) where the bot answers anyone in them; empty: any chat, allowed users only. */
  allowed_chats: ids().default([]),
  group_sessions: oneOf(['per_thread', 'per_user'] as const).default('per_thread'),
  /** Answer other bots' messages (a thread with more than 20 in 5 minutes is paused either way). */
  allow_bots: bool().default(false),
});

/** What every platform section has: on or off, and per-channel settings. */
export const platformKeys = () => ({
  enabled: bool().default(true),
  channels: channelSettings(),
});

/** What a chat platform others reach has besides: its allow-list and the people keys. */
export const chatPlatformKeys = () => ({
  ...platformKeys(),
  allowed_users: ids().default([]),
  ...peopleKeys(),
});

type SharedSection = z.output<z.ZodObject<ReturnType<typeof platformKeys>>>;
/** A chat platform's section as the core sees it: the shared keys and the people keys. */
export type ChatPlatformSection = z.output<z.ZodObject<ReturnType<typeof chatPlatformKeys>>> & Record<string, unknown>;

/**
 * A platform section as the core sees it: the shared keys typed (a chat platform's also its
 * people keys); the platform's own keys are there too, read typed with its own schema.
 */
export type PlatformSection = (SharedSection & Record<string, unknown>) | ChatPlatformSection;

/** True for the section of a platform that others reach (it has an allow-list and the people keys). */
export function isChatSection(section: PlatformSection | undefined): section is ChatPlatformSection {
  return section !== undefined && 'dm_policy' in section && 'allowed_users' in section;
}

/** A platform's own schema of its section, as `adapters/<name>/config.ts` exports it. */
export type PlatformSchema = z.ZodType<PlatformSection>;

/** A section of a platform no schema was given for (a library caller that did not register them): the shared keys, its own kept as written. */
export const anyPlatformSection: PlatformSchema = z.looseObject(chatPlatformKeys());
