import { z } from 'zod';
import { threadRef, type ThreadRef } from '../../src/gateway/index.js';
import type { DiscordReplyTarget } from './inbound.js';

const snowflake = z.string().min(1);

/** `discord:<guild|dm>:<channel or thread>`, the channel, and a slash command's interaction when there is one. */
const DISCORD_TARGET = z.object({
  threadKey: z.string().startsWith('discord:'),
  channelId: snowflake,
  interactionId: snowflake.optional(),
  interactionToken: z.string().min(1).optional(),
  interactionExpiresAt: z.number().optional(),
  reactTo: z.object({ channelId: snowflake, messageId: snowflake }).optional(),
});

/**
 * A Discord thread as the outbox keeps it and another instance passes it. The database's copy
 * leaves the interaction out: its answer is this process's, so after a restart replies go to the
 * channel; a passed message keeps it (the instance it went to answers the deferred command).
 */
export const DISCORD_THREAD: ThreadRef<DiscordReplyTarget> = threadRef<DiscordReplyTarget>(DISCORD_TARGET, {
  durable: ({ threadKey, channelId, reactTo }) => ({ threadKey, channelId, ...(reactTo ? { reactTo } : {}) }),
});
