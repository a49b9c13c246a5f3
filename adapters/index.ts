import type { ConfigChange, HermesConfig, HermesPaths } from '../src/config/index.js';
import type { PlatformAdapter } from '../src/gateway/index.js';
import type { PlatformCoordination } from '../src/coordination/index.js';
import type { Logger } from '../src/shared/logger.js';
import type { Platform, PlatformSetup } from '../src/gateway/platform.js';
import { TELEGRAM } from './telegram/platform.js';
import { SLACK } from './slack/platform.js';
import { DISCORD } from './discord/platform.js';
import { WEB } from './web/platform.js';
import type { WebSharing } from './web/index.js';
import { givePlatformSchemas } from './config.js';

// Whoever builds the adapters also validates config.yaml with each platform's own section.
givePlatformSchemas();
import type { PairingStore } from '../src/pairing/index.js';

export { TelegramAdapter, createTelegramAdapter, type TelegramAdapterOptions, type TelegramReplyTarget } from './telegram/index.js';

export interface BuildAdaptersOptions {
  config: HermesConfig;
  paths: HermesPaths;
  /** Where tokens are read: the settings' environment. */
  env?: NodeJS.ProcessEnv;
  /** The running gateway's settings reload: the web chat's settings form applies through it. */
  reloadSettings?: () => ConfigChange;
  logger?: Logger;
  /** Prints a line for the operator (the web chat's address, a webhook URL…). */
  announce?: (line: string) => void;
  /** Several instances serve the web chat behind one load balancer (its live events cross them). */
  webSharing?: WebSharing;
  /** What the platforms take of the gateway's coordination: event claims, shared rate limits. */
  coordination?: PlatformCoordination;
  /** The pairing store: the web chat's settings list waiting codes and approve or refuse them. */
  pairing?: PairingStore;
}

/** The platforms, in start order: each one folder, one `Platform` definition. */
export const PLATFORMS: ReadonlyArray<Platform<BuildAdaptersOptions>> = [TELEGRAM, SLACK, DISCORD, WEB];

/** The platforms setup and doctor take tokens for (all but the web chat). */
export function chatPlatforms(): Array<{ name: string; setup: PlatformSetup }> {
  return PLATFORMS.flatMap((platform) => (platform.setup ? [{ name: platform.name, setup: platform.setup }] : []));
}

/** The platform named `name`, if there is one. */
export function platformNamed(name: string): Platform<BuildAdaptersOptions> | undefined {
  return PLATFORMS.find((platform) => platform.name === name);
}

/** The adapters that can start with this configuration and environment. */
export function buildAdapters(options: BuildAdaptersOptions): PlatformAdapter[] {
  return PLATFORMS.map((platform) => platform.create(options)).filter((adapter) => adapter !== undefined);
}

/** The platforms `buildAdapters` knows, in start order. */
export function knownPlatforms(): string[] {
  return PLATFORMS.map((platform) => platform.name);
}
