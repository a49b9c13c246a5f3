import type { HermesConfig } from '../../src/config/index.js';
import type { TokenCheck } from '../../src/gateway/platform.js';
import { errorMessage } from '../../src/shared/errors.js';
import { discordConfig } from './config.js';

/** Discord: the bot's own user checks the token; the application's owner (or its team's) is the person to allow. */
export async function checkDiscord(token: string, config: HermesConfig): Promise<TokenCheck> {
  const { ApplicationFlags, REST, Routes } = await import('discord.js');
  const apiUrl = discordConfig(config).api_url || undefined;
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
