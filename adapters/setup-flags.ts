import type { PlatformSetupFlags } from '../src/gateway/platform.js';
import { TELEGRAM_SETUP_FLAGS } from './telegram/setup-flags.js';
import { SLACK_SETUP_FLAGS } from './slack/setup-flags.js';
import { DISCORD_SETUP_FLAGS } from './discord/setup-flags.js';

/**
 * The setup flags of the platforms with tokens, in the registry's order. A light list beside
 * `PLATFORMS` (each Platform's `setup.flags` is the same object): commander declares the flags
 * before any platform's SDK is loaded.
 */
export const PLATFORM_SETUP_FLAGS: readonly PlatformSetupFlags[] = [TELEGRAM_SETUP_FLAGS, SLACK_SETUP_FLAGS, DISCORD_SETUP_FLAGS];
