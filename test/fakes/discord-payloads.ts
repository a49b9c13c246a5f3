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
