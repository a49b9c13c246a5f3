import { z } from 'zod';
import type { HermesConfig } from '../../src/config/index.js';
import { oneOf, port, text } from '../../src/config/fields.js';
import { chatPlatformKeys } from '../../src/config/platform-keys.js';

/** `platforms.slack`: the shared keys, Socket Mode or HTTP (its listen address) and the Web API's address. */
export const SLACK_CONFIG = z.strictObject({
  ...chatPlatformKeys(),
  mode: oneOf(['socket', 'http'] as const).default('socket'),
  port: port().default(3000),
  host: text().min(1, { error: 'expected an address to listen on, such as 127.0.0.1 or 0.0.0.0' }).default('127.0.0.1'),
  api_url: text().default(''),
});

export type SlackConfig = z.output<typeof SLACK_CONFIG>;

/** Slack's section of a loaded configuration, typed (validated at load; read again here with its own schema). */
export function slackConfig(config: Pick<HermesConfig, 'platforms'>): SlackConfig {
  return SLACK_CONFIG.parse(config.platforms.slack ?? {});
}
