import type { HermesConfig } from '../../src/config/index.js';
import type { Logger } from '../../src/shared/index.js';
import type { PlatformCoordination } from '../../src/coordination/index.js';
import { DiscordAdapter } from './adapter.js';
import { discordConfig } from './config.js';

export { DiscordAdapter, DiscordAdapterError, type DiscordAdapterOptions } from './adapter.js';
export { DISCORD_COMMANDS } from './commands.js';
export { discordThreadKey, type DiscordReplyTarget } from './inbound.js';

/**
 * The Discord adapter when `platforms.discord.enabled` and DISCORD_BOT_TOKEN are set, else undefined.
 * Each message and interaction is claimed first (`coordination`: with several instances, one takes it).
 */
export function createDiscordAdapter(options: {
  config: HermesConfig;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  coordination?: PlatformCoordination;
}): DiscordAdapter | undefined {
  const env = options.env ?? {};
  const discord = discordConfig(options.config);
  const token = env.DISCORD_BOT_TOKEN?.trim();
  if (!discord.enabled || !token) return undefined;
  return new DiscordAdapter({ token, apiUrl: discord.api_url || undefined, logger: options.logger, claims: options.coordination?.eventClaims });
}
