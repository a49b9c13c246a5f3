import { allowsAllUsers, isChatSection, type HermesConfig, type SettingsEnv } from '../config/index.js';
import type { PairingStore } from '../pairing/index.js';
import { inAllowedChat } from './group-policy.js';
import { peopleSettings } from './people-settings.js';
import type { InboundMessage } from './types.js';

/** Platforms on this machine only; they guard themselves and need no allow-list. */
const LOCAL_PLATFORMS = new Set(['web', 'console']);

/**
 * Whether a message's sender may talk: `allowListed` when the allow-list (or allow-all) lets
 * them in, else through a pairing, an allowed group chat or `dm_policy: open`; `pairing` when a
 * stranger's DM should get a pairing code; `refused` otherwise.
 */
export type Admission = { kind: 'allowed'; allowListed: boolean } | { kind: 'pairing' } | { kind: 'refused' };

/**
 * Who may talk to the bot. Closed by default: a user is allowed when listed in
 * `platforms.<name>.allowed_users` or `<NAME>_ALLOWED_USERS`, when `GATEWAY_ALLOW_ALL_USERS=true`,
 * when an owner approved their pairing code (read from the store at each message, so an
 * approval or a revoke on any instance applies at once), in a group chat of `allowed_chats`,
 * or in a DM under `dm_policy: open`.
 */
export class AccessPolicy {
  private readonly notified = new Set<string>();

  constructor(
    private readonly config: HermesConfig,
    private readonly env: SettingsEnv,
    private readonly pairing?: PairingStore,
  ) {}

  /** True when `userId` may use the bot on `platform` (a DM's view: the allow-list or a pairing). */
  isAllowed(platform: string, userId: string): boolean {
    return this.isAllowListed(platform, userId) || (this.pairing?.isPaired(platform, userId) ?? false);
  }

  /** True when the allow-list itself lets `userId` in (or allow-all, or a local platform). */
  isAllowListed(platform: string, userId: string): boolean {
    if (LOCAL_PLATFORMS.has(platform)) return true;
    if (allowsAllUsers(this.env)) return true;
    return this.allowedUsers(platform).has(userId);
  }

  /** What becomes of `message`'s sender: allowed, a pairing code to give, or refused. */
  admit(message: InboundMessage): Admission {
    const { platform } = message;
    const userId = message.user.id;
    if (this.isAllowListed(platform, userId)) return { kind: 'allowed', allowListed: true };
    if (this.pairing?.isPaired(platform, userId)) return { kind: 'allowed', allowListed: false };
    const settings = peopleSettings(this.config, platform);
    if (message.chat.type !== 'dm') {
      return inAllowedChat(message, settings.allowedChats) ? { kind: 'allowed', allowListed: false } : { kind: 'refused' };
    }
    if (settings.dmPolicy === 'open') return { kind: 'allowed', allowListed: false };
    if (settings.dmPolicy === 'pairing' && this.pairing) return { kind: 'pairing' };
    return { kind: 'refused' };
  }

  /** The configured and environment allow-lists of one platform, merged. */
  allowedUsers(platform: string): Set<string> {
    const section = Object.entries(this.config.platforms).find(([name]) => name === platform)?.[1];
    const listed = isChatSection(section) ? section.allowed_users : [];
    const fromEnv = (this.env[envName(platform)] ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id.length > 0);
    return new Set([...listed, ...fromEnv]);
  }

  /** True the first time a refused user is seen (they get one reply, not one per message). */
  firstRefusal(platform: string, userId: string): boolean {
    const key = `${platform}:${userId}`;
    if (this.notified.has(key)) return false;
    this.notified.add(key);
    return true;
  }

  /** The reply a refused user gets: their id and how the operator lets them in. */
  refusalText(platform: string, userId: string): string {
    return (
      `Sorry, you are not allowed to use this bot. Your ${platform} user id is ${userId}. ` +
      `The bot's operator can let you in by adding it to ${envName(platform)} ` +
      `(comma-separated ids) or to platforms.${platform}.allowed_users in config.yaml.`
    );
  }
}

/** `telegram` → `TELEGRAM_ALLOWED_USERS`. */
export function envName(platform: string): string {
  return `${platform.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_ALLOWED_USERS`;
}
