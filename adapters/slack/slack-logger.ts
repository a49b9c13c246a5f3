import { LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from '../../src/shared/index.js';

/** Bolt's and the WebClient's logging, sent to the gateway's pino logger instead of the console. */
export function slackLogger(logger: Logger): SlackLogger {
  let level = LogLevel.INFO;
  const text = (msg: unknown[]): string => msg.map((part) => (typeof part === 'string' ? part : String(part))).join(' ');
  return {
    debug: (...msg: unknown[]) => logger.debug(text(msg)),
    info: (...msg: unknown[]) => logger.info(text(msg)),
    warn: (...msg: unknown[]) => logger.warn(text(msg)),
    error: (...msg: unknown[]) => logger.error(text(msg)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
