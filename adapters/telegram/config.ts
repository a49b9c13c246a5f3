import { z } from 'zod';
import type { HermesConfig } from '../../src/config/index.js';
import { bool, text } from '../../src/config/fields.js';
import { chatPlatformKeys } from '../../src/config/platform-keys.js';

/** `platforms.telegram`: the shared keys, the Bot API's address, the webhook's listen address and the send throttle. */
export const TELEGRAM_CONFIG = z.strictObject({
  ...chatPlatformKeys(),
  api_root: text().default(''),
  webhook_host: text().min(1, { error: 'expected an address to listen on, such as 127.0.0.1 or 0.0.0.0' }).default('127.0.0.1'),
  throttle: bool().default(true),
});

export type TelegramConfig = z.output<typeof TELEGRAM_CONFIG>;

/** Telegram's section of a loaded configuration, typed (validated at load; read again here with its own schema). */
export function telegramConfig(config: Pick<HermesConfig, 'platforms'>): TelegramConfig {
  return TELEGRAM_CONFIG.parse(config.platforms.telegram ?? {});
}
