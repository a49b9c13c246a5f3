import { portRangeText, readPort, type HermesConfig } from '../../src/config/index.js';
import type { Logger } from '../../src/shared/index.js';
import type { PlatformCoordination } from '../../src/coordination/index.js';
import { SlackAdapter, SlackAdapterError } from './adapter.js';
import { slackConfig } from './config.js';

export { SlackAdapter, SlackAdapterError, type SlackAdapterOptions } from './adapter.js';
export { readSlackEvent, type SlackMessageEvent, type SlackReplyTarget, type SlackIdentity } from './inbound.js';
export { markdownToMrkdwn, escapeSlack, unescapeSlack } from './mrkdwn.js';

/**
 * The Slack adapter when `platforms.slack.enabled` and SLACK_BOT_TOKEN are set, else undefined.
 * Socket Mode reads SLACK_APP_TOKEN, HTTP mode SLACK_SIGNING_SECRET (`platforms.slack.mode`) and
 * listens on `platforms.slack.host`, port SLACK_HTTP_PORT else `platforms.slack.port` (instances
 * sharing one HERMES_HOME each take their own port from the environment).
 */
export function createSlackAdapter(options: {
  config: HermesConfig;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Several instances: each message is claimed first, so one of them takes it. */
  coordination?: PlatformCoordination;
}): SlackAdapter | undefined {
  const env = options.env ?? {};
  const slack = slackConfig(options.config);
  const botToken = env.SLACK_BOT_TOKEN?.trim();
  if (!slack.enabled || !botToken) return undefined;
  return new SlackAdapter({
    botToken,
    mode: slack.mode,
    appToken: env.SLACK_APP_TOKEN?.trim() || undefined,
    signingSecret: env.SLACK_SIGNING_SECRET?.trim() || undefined,
    port: slack.mode === 'http' ? httpPort(env, slack.port) : slack.port,
    host: slack.host,
    apiUrl: slack.api_url || undefined,
    logger: options.logger,
    claims: options.coordination?.eventClaims,
  });
}

/** SLACK_HTTP_PORT when set (a port number), else the configured port. */
function httpPort(env: NodeJS.ProcessEnv, configured: number): number {
  const raw = env.SLACK_HTTP_PORT?.trim();
  if (!raw) return configured;
  const port = readPort(raw);
  if (port === undefined) {
    throw new SlackAdapterError(`SLACK_HTTP_PORT must be ${portRangeText()}, got "${raw}"; fix it or unset it to use platforms.slack.port`);
  }
  return port;
}
