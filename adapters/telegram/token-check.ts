import type { Api } from 'grammy';
import type { HermesConfig } from '../../src/config/index.js';
import type { TokenCheck } from '../../src/gateway/platform.js';
import { errorMessage } from '../../src/shared/errors.js';
import { telegramConfig } from './config.js';

/**
 * Telegram: getMe checks the token; with `findSender`, the sender of the newest message the bot
 * has is the person to allow. Doctor leaves that out: a getUpdates call ends a running
 * gateway's long poll (409 Conflict).
 */
export async function checkTelegram(token: string, config: HermesConfig, findSender = true): Promise<TokenCheck> {
  const { Api: TelegramApi } = await import('grammy');
  const root = telegramConfig(config).api_root.replace(/\/+$/, '');
  const api = new TelegramApi(token, root ? { apiRoot: root } : undefined);
  let username: string;
  let readsGroups: boolean;
  try {
    const me = await api.getMe();
    username = me.username;
    readsGroups = me.can_read_all_group_messages;
  } catch (error) {
    return { ok: false, detail: `Telegram refused the token (getMe: ${errorMessage(error)}); copy it again from @BotFather (/mybots → API Token)` };
  }
  // Privacy mode (on by default): in groups the bot sees only mentions, replies and commands.
  const warnings = readsGroups
    ? []
    : [`@${username} has privacy mode on: in groups it sees only mentions, replies to it and commands, so wake_words and require_mention: false do not work there; @BotFather → /setprivacy → Disable, then remove and re-add the bot to each group`];
  return { ok: true, detail: `the bot is @${username}`, person: findSender ? await lastTelegramSender(api) : undefined, ...(warnings.length > 0 ? { warnings } : {}) };
}

/** The sender of the newest message the bot has waiting (asked again after the person wrote to it). */
export async function findTelegramSender(token: string, config: HermesConfig): Promise<TokenCheck['person']> {
  const { Api: TelegramApi } = await import('grammy');
  const root = telegramConfig(config).api_root.replace(/\/+$/, '');
  return lastTelegramSender(new TelegramApi(token, root ? { apiRoot: root } : undefined));
}

/**
 * The sender of the newest message waiting for the bot. getUpdates without an offset confirms
 * nothing, so the gateway still gets every message later. A webhook (409) or no message: none.
 */
async function lastTelegramSender(api: Api): Promise<TokenCheck['person']> {
  try {
    const updates = await api.getUpdates({ timeout: 0, allowed_updates: ['message'] });
    const from = updates.map((update) => update.message?.from).filter((sender) => sender !== undefined).at(-1);
    return from ? { id: String(from.id), name: from.username ? `${from.first_name} (@${from.username})` : from.first_name } : undefined;
  } catch {
    return undefined;
  }
}
