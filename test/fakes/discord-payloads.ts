/** Payload builders for the fake Discord: the shapes discord.js reads from the Gateway and REST. */

export interface FakeDiscordUser {
  id: string;
  username: string;
  bot?: boolean;
}

export function userObject(user: FakeDiscordUser): Record<string, unknown> {
  return { id: user.id, username: user.username, discriminator: '0', global_name: user.username, avatar: null, bot: user.bot ?? false };
}

export function memberObject(): Record<string, unknown> {
  return { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 };
}

/** GUILD_CREATE for a small guild: the @everyone role, its channels and its active threads. */
export function guildCreatePayload(guildId: string, channels: unknown[], threads: unknown[]): Record<string, unknown> {
  return {
    id: guildId,
    name: 'Fake guild',
    icon: null,
    owner_id: '911111111111111111',
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    features: [],
    mfa_level: 0,
    premium_tier: 0,
    preferred_locale: 'en-US',
    nsfw_level: 0,
    roles: [{ id: guildId, name: '@everyone', permissions: '0', position: 0, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 }],
    emojis: [],
    stickers: [],
    joined_at: new Date().toISOString(),
    large: false,
    unavailable: false,
    member_count: 2,
    members: [],
    voice_states: [],
    presences: [],
    channels,
    threads,
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/** INTERACTION_CREATE for a press of a button (type 3, MESSAGE_COMPONENT; component_type 2) on `message`. */
export function buttonInteractionPayload(fields: {
  id: string;
  token: string;
  applicationId: string;
  customId: string;
  message: Record<string, unknown>;
  channelId: string;
  channel: Record<string, unknown>;
  user: Record<string, unknown>;
  /** Absent in a DM: there the presser is `user`, in a guild `member.user`. */
  guildId?: string;
}): Record<string, unknown> {
  const data: Record<string, unknown> = {
    id: fields.id,
    application_id: fields.applicationId,
    type: 3,
    token: fields.token,
    version: 1,
    data: { custom_id: fields.customId, component_type: 2 },
    message: fields.message,
    channel_id: fields.channelId,
    channel: fields.channel,
    app_permissions: '0',
    locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: fields.guildId ? { '0': fields.guildId } : { '1': String(fields.user.id) },
    context: fields.guildId ? 0 : 1,
    attachment_size_limit: 8_388_608,
  };
  if (fields.guildId) {
    data.guild_id = fields.guildId;
    data.guild_locale = 'en-US';
    data.member = { ...memberObject(), user: fields.user, permissions: '0' };
  } else {
    data.user = fields.user;
  }
  return data;
}

/** A message the bot sent, as REST and the Gateway show it (components included). */
export function botMessageObject(
  bot: FakeDiscordUser,
  message: { id: string; channel_id: string; content: string; components?: unknown[]; attachments?: unknown[] },
): Record<string, unknown> {
  return {
    id: message.id,
    channel_id: message.channel_id,
    author: userObject(bot),
    content: message.content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: message.attachments ?? [],
    embeds: [],
    pinned: false,
    type: 0,
    components: message.components ?? [],
  };
}
