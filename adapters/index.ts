import type { HermesConfig, HermesPaths } from '../src/config/index.js';
import type { PlatformAdapter } from '../src/gateway/index.js';
import type { Logger } from '../src/shared/logger.js';
import { createTelegramAdapter } from './telegram/index.js';
import { createSlackAdapter } from './slack/index.js';
import { createDiscordAdapter } from './discord/index.js';
import { createWebChat, type WebSharing } from './web/index.js';

export { TelegramAdapter, createTelegramAdapter, type TelegramAdapterOptions, type TelegramReplyTarget } from './telegram/index.js';

export interface BuildAdaptersOptions {
  config: HermesConfig;
  paths: HermesPaths;
  /** Where tokens are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Prints a line for the operator (the web chat's address, a webhook URL…). */
  announce?: (line: string) => void;
  /** Several instances serve the web chat behind one load balancer (its live events cross Redis). */
  webSharing?: WebSharing;
}

type AdapterFactory = (options: BuildAdaptersOptions) => PlatformAdapter | undefined;

/**
 * One factory per platform. Each returns its adapter when the platform is enabled and has
 * its tokens (the web chat needs none), else undefined.
 */
const FACTORIES: Array<[name: string, factory: AdapterFactory]> = [
  ['telegram', (options) => createTelegramAdapter(options)],
  ['slack', (options) => createSlackAdapter(options)],
  ['discord', (options) => createDiscordAdapter(options)],
  ['web', (options) => createWebChat(options)],
];

/** The adapters that can start with this configuration and environment. */
export function buildAdapters(options: BuildAdaptersOptions): PlatformAdapter[] {
  const adapters: PlatformAdapter[] = [];
  for (const [, factory] of FACTORIES) {
    const adapter = factory(options);
    if (adapter) adapters.push(adapter);
  }
  return adapters;
}

/** The platforms `buildAdapters` knows, in start order. */
export function knownPlatforms(): string[] {
  return FACTORIES.map(([name]) => name);
}
