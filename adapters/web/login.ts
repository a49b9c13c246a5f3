import { join } from 'node:path';
import type { WebConfig } from './config.js';
import { assertSafeBinding, isLoopbackHost, WebChatError } from './access.js';
import { loadOrCreateToken } from './token-file.js';

/** How the web chat checks who is on the other side. */
export interface WebLogin {
  /** The token every request needs; empty when the login is off (`auth: none`, loopback only). */
  token: string;
  /** Where the token can be found, for the 401 page and the log. */
  where: string;
  /** Said on the console and in the log at start, when there is something to say. */
  warning?: string;
}

/** `HERMES_HOME/web/token`: the token made when `platforms.web.token` is empty. */
export function tokenFilePath(home: string): string {
  return join(home, 'web', 'token');
}

/**
 * The login, as Jupyter does it: `platforms.web.token` when set; else, on loopback, a token
 * made once and kept in `HERMES_HOME/web/token` (0600), since any other user of this machine
 * can reach a loopback port too. `auth: none` turns the login off, on loopback only; any
 * other address still needs `platforms.web.token`.
 */
export function resolveWebLogin(web: WebConfig, home: string): WebLogin {
  if (web.auth === 'none') {
    if (!isLoopbackHost(web.host)) {
      throw new WebChatError(
        'WEB_AUTH_NONE_OFF_LOOPBACK',
        `platforms.web.auth is "none" and platforms.web.host is "${web.host}", which other machines can reach: ` +
          'the web chat runs code on this machine, so it refuses to start without a login there. ' +
          'Remove platforms.web.auth (the default is token), or bind to 127.0.0.1.',
      );
    }
    return {
      token: '',
      where: 'nowhere (platforms.web.auth: none)',
      warning:
        'platforms.web.auth is none: the web chat has no login, so every user of this machine can use it ' +
        "and run code as this gateway's user. Remove platforms.web.auth to turn the login back on.",
    };
  }
  if (web.token) return { token: web.token, where: 'platforms.web.token' };
  assertSafeBinding(web.host, web.token);
  const file = tokenFilePath(home);
  return { token: loadOrCreateToken(file).token, where: file };
}
