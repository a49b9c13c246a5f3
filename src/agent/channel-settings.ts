import type { HermesConfig } from '../config/schema.js';

/** Where a turn's message came from: the platform and the chat id it gives (a channel, a group, a DM). */
export interface TurnChannel {
  platform: string;
  id: string;
}

/** What a channel's own settings change for its turns; empty fields leave the defaults. */
export interface ChannelOverrides {
  model?: string;
  systemPrompt?: string;
}

/**
 * `platforms.<name>.channels.<id>` for the turn's channel. One small lookup so another level
 * (per account) can be laid over it here; a thread's /model still wins over what it says.
 */
export function channelOverrides(config: HermesConfig, channel: TurnChannel | undefined): ChannelOverrides {
  if (!channel) return {};
  const section = Object.entries(config.platforms).find(([name]) => name === channel.platform)?.[1];
  const own = section?.channels[channel.id];
  if (!own) return {};
  return { ...(own.model ? { model: own.model } : {}), ...(own.system_prompt.trim() ? { systemPrompt: own.system_prompt.trim() } : {}) };
}

/** The system prompt with the channel's own instructions after it. */
export function withChannelPrompt(system: string, overrides: ChannelOverrides): string {
  return overrides.systemPrompt ? `${system}\n\n## This channel's instructions\n\n${overrides.systemPrompt}` : system;
}
