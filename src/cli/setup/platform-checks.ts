import type { Api } from 'grammy';
import type { HermesConfig } from '../../config/index.js';
import { errorMessage } from '../../shared/errors.js';

/** What the platform said about a token: who the bot is, and whose id to allow (when it can tell). */
export interface TokenCheck {
  ok: boolean;
  /** The bot as the platform names it (`@hermes_bot`, `hermes in Acme`), or why the token was refused. */
  detail: string;
  /** The person to allow, when the platform tells (Telegram: the last sender; Discord: the application's owner). */
  person?: { id: string; name: string };
}

/**
 * Telegram: getMe checks the token; with `findSender`, the sender of the newest message the bot
 * has is the person to allow. Doctor leaves that out: a getUpdates call ends a running
 * gateway's long poll (409 Conflict).
 */
export async function checkTelegram(token: string, config: HermesConfig, findSender = true): Promise<TokenCheck> {
  const { Api: TelegramApi } = await import('grammy');
  const root = config.platforms.telegram.api_root.replace(/\/+$/, '');
  const api = new TelegramApi(token, root ? { apiRoot: root } : undefined);
  let username: string;
  try {
    username = (await api.getMe()).username;
  } catch (error) {
    return { ok: false, detail: `Telegram refused the token (getMe: ${errorMessage(error)}); copy it again from @BotFather (/mybots → API Token)` };
  }
  return { ok: true, detail: `the bot is @${username}`, person: findSender ? await lastTelegramSender(api) : undefined };
}

/** The sender of the newest message the bot has waiting (asked again after the person wrote to it). */
export async function findTelegramSender(token: string, config: HermesConfig): Promise<TokenCheck['person']> {
  const { Api: TelegramApi } = await import('grammy');
  const root = config.platforms.telegram.api_root.replace(/\/+$/, '');
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

/** Slack: auth.test with the bot token; in Socket Mode the app token must open a connection. */
export async function checkSlack(tokens: { bot: string; app?: string }, config: HermesConfig): Promise<TokenCheck> {
  const { webApi } = await import('@slack/bolt');
  const apiUrl = config.platforms.slack.api_url || undefined;
  const options = { ...(apiUrl ? { slackApiUrl: apiUrl } : {}), retryConfig: { retries: 0 } };
  let detail: string;
  try {
    const auth = await new webApi.WebClient(tokens.bot, options).auth.test();
    detail = `the bot is ${auth.user ?? auth.user_id ?? '?'} in ${auth.team ?? auth.team_id ?? '?'}`;
  } catch (error) {
    return { ok: false, detail: `Slack refused SLACK_BOT_TOKEN (auth.test: ${errorMessage(error)}); copy the Bot User OAuth Token (xoxb-…) from OAuth & Permissions` };
  }
  if (config.platforms.slack.mode === 'socket') {
    if (!tokens.app) return { ok: false, detail: `${detail}, but Socket Mode needs SLACK_APP_TOKEN (xapp-…, Basic Information → App-Level Tokens, scope connections:write)` };
    try {
      await new webApi.WebClient(tokens.app, options).apps.connections.open();
    } catch (error) {
      return { ok: false, detail: `${detail}, but Slack refused SLACK_APP_TOKEN (apps.connections.open: ${errorMessage(error)}); make an app-level token with connections:write under Basic Information → App-Level Tokens` };
    }
    detail += '; the app token opens Socket Mode';
  }
  return { ok: true, detail };
}

/** Discord: the bot's own user checks the token; the application's owner (or its team's) is the person to allow. */
export async function checkDiscord(token: string, config: HermesConfig): Promise<TokenCheck> {
  const { ApplicationFlags, REST, Routes } = await import('discord.js');
  const apiUrl = config.platforms.discord.api_url || undefined;
  const rest = new REST({ ...(apiUrl ? { api: apiUrl } : {}), retries: 0, timeout: 15_000 }).setToken(token);
  try {
    const bot = (await rest.get(Routes.user())) as { username: string };
    const app = (await rest.get(Routes.currentApplication())) as {
      flags?: number;
      owner?: { id: string; username: string };
      team?: { owner_user_id: string; name: string } | null;
    };
    // The bot asks for the Message Content intent; without it Discord refuses the gateway connection.
    const contentIntent = ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited;
    if (((app.flags ?? 0) & contentIntent) === 0) {
      return { ok: false, detail: `the bot is ${bot.username}, but its Message Content Intent is off; turn it on in the Developer Portal under Bot → Privileged Gateway Intents, save, and run setup again` };
    }
    const person = app.team
      ? { id: app.team.owner_user_id, name: `the owner of the team ${app.team.name}` }
      : app.owner ? { id: app.owner.id, name: app.owner.username } : undefined;
    return { ok: true, detail: `the bot is ${bot.username}`, person };
  } catch (error) {
    return { ok: false, detail: `Discord refused the token (${errorMessage(error)}); reset and copy it under Bot → Token in the Developer Portal` };
  } finally {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }
}
