import { allowsAllUsers, type HermesConfig, type SettingsEnv } from '../config/index.js';

/** Platforms on this machine only; they guard themselves and need no allow-list. */
const LOCAL_PLATFORMS = new Set(['web', 'console']);

/**
 * Who may talk to the bot. Closed by default: a user is allowed when listed in
 * `platforms.<name>.allowed_users` or `<NAME>_ALLOWED_USERS`, or when
 * `GATEWAY_ALLOW_ALL_USERS=true`.
 */
export class AccessPolicy {
  private readonly notified = new Set<string>();

  constructor(
    private readonly config: HermesConfig,
    private readonly env: SettingsEnv,
  ) {}

  /** True when `userId` may use the bot on `platform`. */
  isAllowed(platform: string, userId: string): boolean {
    if (LOCAL_PLATFORMS.has(platform)) return true;
    if (allowsAllUsers(this.env)) return true;
    return this.allowedUsers(platform).has(userId);
  }

  /** The configured and environment allow-lists of one platform, merged. */
  allowedUsers(platform: string): Set<string> {
    const section = (this.config.platforms as Record<string, { allowed_users?: readonly string[] } | undefined>)[platform];
    const fromEnv = (this.env[envName(platform)] ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id.length > 0);
    return new Set([...(section?.allowed_users ?? []), ...fromEnv]);
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
