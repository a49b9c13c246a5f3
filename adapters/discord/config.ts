import { z } from 'zod';
import type { HermesConfig } from '../../src/config/index.js';
import { text } from '../../src/config/fields.js';
import { chatPlatformKeys } from '../../src/config/platform-keys.js';

/** `platforms.discord`: the shared keys and the REST API's address. */
export const DISCORD_CONFIG = z.strictObject({
  ...chatPlatformKeys(),
  api_url: text().default(''),
});

export type DiscordConfig = z.output<typeof DISCORD_CONFIG>;

/** Discord's section of a loaded configuration, typed (validated at load; read again here with its own schema). */
export function discordConfig(config: Pick<HermesConfig, 'platforms'>): DiscordConfig {
  return DISCORD_CONFIG.parse(config.platforms.discord ?? {});
}
