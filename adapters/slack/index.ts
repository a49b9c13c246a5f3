import type { HermesConfig } from '../../src/config/index.js';
import type { Logger } from '../../src/shared/index.js';
import { SlackAdapter } from './adapter.js';

export { SlackAdapter, SlackAdapterError, type SlackAdapterOptions } from './adapter.js';
export { readSlackEvent, type SlackMessageEvent, type SlackReplyTarget, type SlackIdentity } from './inbound.js';
export { markdownToMrkdwn, escapeSlack, unescapeSlack } from './mrkdwn.js';

/**
 * The Slack adapter when `platforms.slack.enabled` and SLACK_BOT_TOKEN are set, else undefined.
 * Socket Mode reads SLACK_APP_TOKEN, HTTP mode SLACK_SIGNING_SECRET (`platforms.slack.mode`).
 */
export function createSlackAdapter(options: {
  config: HermesConfig;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
}): SlackAdapter | undefined {
  const env = options.env ?? process.env;
  const slack = options.config.platforms.slack;
  const botToken = env.SLACK_BOT_TOKEN?.trim();
  if (!slack.enabled || !botToken) return undefined;
  return new SlackAdapter({
    botToken,
    mode: slack.mode,
    appToken: env.SLACK_APP_TOKEN?.trim() || undefined,
    signingSecret: env.SLACK_SIGNING_SECRET?.trim() || undefined,
    port: slack.port,
    apiUrl: slack.api_url || undefined,
    logger: options.logger,
  });
}
