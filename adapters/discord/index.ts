import type { HermesConfig } from '../../src/config/index.js';
import type { Logger } from '../../src/shared/index.js';
import { redisEventClaims } from '../../src/coordination/event-claims.js';
import { redisUrlFrom } from '../../src/coordination/redis-url.js';
import { silentLogger } from '../../src/shared/logger.js';
import { DiscordAdapter } from './adapter.js';

export { DiscordAdapter, DiscordAdapterError, type DiscordAdapterOptions } from './adapter.js';
export { DISCORD_COMMANDS } from './commands.js';
export { discordThreadKey, type DiscordReplyTarget } from './inbound.js';

/**
 * The Discord adapter when `platforms.discord.enabled` and DISCORD_BOT_TOKEN are set, else undefined.
 * With `coordination.backend: redis` each message and interaction is claimed in Redis first.
 */
export function createDiscordAdapter(options: {
  config: HermesConfig;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
}): DiscordAdapter | undefined {
  const env = options.env ?? {};
  const discord = options.config.platforms.discord;
  const token = env.DISCORD_BOT_TOKEN?.trim();
  if (!discord.enabled || !token) return undefined;
  const claims =
    options.config.coordination.backend === 'redis'
      ? redisEventClaims({ redisUrl: redisUrlFrom(options.config, env), logger: options.logger ?? silentLogger() })
      : undefined;
  return new DiscordAdapter({ token, apiUrl: discord.api_url || undefined, logger: options.logger, claims });
}
