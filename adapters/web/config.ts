import { z } from 'zod';
import type { HermesConfig } from '../../src/config/index.js';
import { oneOf, port, positiveInt, text } from '../../src/config/fields.js';
import { platformKeys } from '../../src/config/platform-keys.js';

/** `platforms.web`: the shared keys (no allow-list: the login is the gate), where it listens, its login and its stream limit. */
export const WEB_CONFIG = z.strictObject({
  ...platformKeys(),
  host: text().default('127.0.0.1'),
  port: port({ anyFree: true }).default(8787),
  token: text().default(''),
  auth: oneOf(['token', 'none'] as const).default('token'),
  max_streams: positiveInt().default(32),
  /** Days the login cookie lasts in the browser; 0 ends it with the browser session. */
  login_days: z.number({ error: 'expected a number of days' }).min(0, { error: 'expected 0 or more days' }).default(30),
});

export type WebConfig = z.output<typeof WEB_CONFIG>;

/** The web chat's section of a loaded configuration, typed (validated at load; read again here with its own schema). */
export function webConfig(config: Pick<HermesConfig, 'platforms'>): WebConfig {
  return WEB_CONFIG.parse(config.platforms.web ?? {});
}
