import type { HermesConfig } from '../../src/config/index.js';
import type { TokenCheck } from '../../src/gateway/platform.js';
import { errorMessage } from '../../src/shared/errors.js';
import { slackConfig } from './config.js';

/** Slack: auth.test with the bot token; in Socket Mode the app token must open a connection. */
export async function checkSlack(tokens: { bot: string; app?: string }, config: HermesConfig): Promise<TokenCheck> {
  const { webApi } = await import('@slack/bolt');
  const apiUrl = slackConfig(config).api_url || undefined;
  const options = { ...(apiUrl ? { slackApiUrl: apiUrl } : {}), retryConfig: { retries: 0 } };
  let detail: string;
  try {
    const auth = await new webApi.WebClient(tokens.bot, options).auth.test();
    detail = `the bot is ${auth.user ?? auth.user_id ?? '?'} in ${auth.team ?? auth.team_id ?? '?'}`;
  } catch (error) {
    return { ok: false, detail: `Slack refused SLACK_BOT_TOKEN (auth.test: ${errorMessage(error)}); copy the Bot User OAuth Token (xoxb-…) from OAuth & Permissions` };
  }
  if (slackConfig(config).mode === 'socket') {
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
