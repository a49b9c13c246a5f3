import { usePlatformSchemas } from '../src/config/platform-schemas.js';
import type { PlatformSchema } from '../src/config/platform-keys.js';
import { SLACK_CONFIG } from './slack/config.js';
import { DISCORD_CONFIG } from './discord/config.js';
import { TELEGRAM_CONFIG } from './telegram/config.js';
import { WEB_CONFIG } from './web/config.js';

/*
 * Each platform's config schema, by its section name: zod only (no SDK), so the CLI can give
 * them to the config loader before any command reads config.yaml.
 */
export const PLATFORM_SCHEMAS: Readonly<Record<string, PlatformSchema>> = {
  slack: SLACK_CONFIG,
  discord: DISCORD_CONFIG,
  telegram: TELEGRAM_CONFIG,
  web: WEB_CONFIG,
};

/** Gives the loader the platforms' schemas (idempotent): config.yaml is then validated with each section's own keys. */
export function givePlatformSchemas(): void {
  usePlatformSchemas(PLATFORM_SCHEMAS);
}
