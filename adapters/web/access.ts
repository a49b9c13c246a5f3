import { createHash, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { loginPage } from './login-page.js';
import { HermesError } from '../../src/shared/errors.js';

/** The cookie that carries the token after the page was opened once with `?token=`. */
export const TOKEN_COOKIE = 'hermes_web_token';

/**
 * The cookie's name for the port the page was opened on: cookies are kept per host, not per
 * port, and two gateways on one machine (two HERMES_HOMEs) must not log each other out.
 */
export function tokenCookieName(port: string): string {
  return `${TOKEN_COOKIE}_${port}`;
}

function portOf(url: string): string {
  const parsed = new URL(url);
  return parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
}

/** The web chat cannot start as configured. */
export class WebChatError extends HermesError {
  override readonly name = 'WebChatError';
}

/** True for `localhost`, 127.0.0.0/8, ::1 and their IPv4-mapped forms: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === 'loopback';
}

/**
 * Refuses a configuration that would put an unauthenticated agent (which runs code) on the
 * network: any host other than loopback needs `platforms.web.token`.
 */
export function assertSafeBinding(host: string, token: string): void {
  if (isLoopbackHost(host) || token) return;
  throw new WebChatError(
    'WEB_TOKEN_REQUIRED',
    `platforms.web.host is "${host}", which other machines can reach, and platforms.web.token is empty: ` +
      'the web chat runs code on this machine, so it refuses to start without a token. ' +
      'Set one (hermes config set platforms.web.token "$(openssl rand -hex 24)") or bind to 127.0.0.1.',
  );
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function presentedToken(c: Context, cookie: string): string | undefined {
  const auth = c.req.header('authorization');
  if (auth?.toLowerCase().startsWith('bearer ')) return auth.slice(7).trim();
  return c.req.header('x-hermes-token') ?? getCookie(c, cookie);
}

/**
 * With a token, every request needs it: `Authorization: Bearer …`, the `X-Hermes-Token`
 * header, or the cookie set when the page is opened once with `?token=…` (which then
 * redirects to the same address without the token, keeping it out of history). An empty
 * token lets every request through (`platforms.web.auth: none`, loopback only).
 * `where` says where the token can be found, for the 401 page.
 */
export function requireToken(token: string, where = 'platforms.web.token', options: { loginDays?: number } = {}): MiddlewareHandler {
  const refusal =
    'The web chat needs its token: open the address hermes gateway printed (it ends in ?token=…), ' +
    `or add ?token=<the token in ${where}> to this address.\n`;
  // platforms.web.login_days: the cookie outlives the browser (0: it ends with the browser session).
  const days = options.loginDays ?? 30;
  const lifetime = days > 0 ? { maxAge: Math.round(days * 86_400) } : {};
  return async (c, next) => {
    if (!token) return next();
    const cookie = tokenCookieName(portOf(c.req.url));
    const fromQuery = c.req.query('token');
    if (fromQuery !== undefined && sameSecret(fromQuery, token)) {
      setCookie(c, cookie, token, { httpOnly: true, sameSite: 'Strict', path: '/', ...lifetime });
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      return c.redirect(url.pathname + url.search, 303);
    }
    const given = presentedToken(c, cookie);
    if (given !== undefined && sameSecret(given, token)) return next();
    const path = new URL(c.req.url).pathname;
    // The API keeps a JSON 401; a browser asking for a page gets a form that asks for the token.
    if (path.startsWith('/api/')) return c.json({ error: refusal.trim() }, 401);
    if (wantsHtml(c)) return c.html(loginPage({ path, where, wrong: fromQuery !== undefined }), 401);
    return c.text(refusal, 401);
  };
}

/** A browser navigating to a page (Accept: text/html), not a script fetching a resource. */
function wantsHtml(c: Context): boolean {
  return c.req.method === 'GET' && (c.req.header('accept') ?? '').toLowerCase().includes('text/html');
}

/**
 * Keeps other web sites out, with or without a login. A page elsewhere could otherwise post
 * to 127.0.0.1 (cross-site request) or rebind its own name to it (DNS rebinding) and have
 * the agent run code: on loopback, requests must name a loopback host, and writes must come
 * from this origin as JSON (which a cross-site form cannot send without a CORS preflight we
 * never answer).
 */
export function sameOriginOnly(options: { loopbackOnly: boolean }): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (options.loopbackOnly && !isLoopbackHost(hostName(host))) {
      return c.text(`The web chat answers only to loopback addresses, not to "${host}".\n`, 403);
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const site = c.req.header('sec-fetch-site');
      if (site && site !== 'same-origin' && site !== 'none') return c.text('Cross-site requests are refused.\n', 403);
      const origin = c.req.header('origin');
      if (origin && origin !== 'null' && safeHost(origin) !== host.toLowerCase()) {
        return c.text('Cross-origin requests are refused.\n', 403);
      }
      if (origin === 'null') return c.text('Requests from an opaque origin are refused.\n', 403);
      const type = c.req.header('content-type') ?? '';
      // A file upload is raw bytes; its X-Hermes-Upload header, like JSON, needs a preflight we never answer.
      const upload = c.req.header('x-hermes-upload') === '1';
      if (!upload && !type.toLowerCase().startsWith('application/json')) return c.text('Send JSON (Content-Type: application/json).\n', 415);
    }
    return next();
  };
}

/** `127.0.0.1:8787` → `127.0.0.1`, `[::1]:8787` → `::1`. */
function hostName(hostHeader: string): string {
  const match = /^\[([^\]]+)\](?::\d+)?$/.exec(hostHeader);
  if (match) return match[1];
  return hostHeader.replace(/:\d+$/, '');
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}
