import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebAdapter, createWebChat, isLoopbackHost, type WebAdapter } from '../../../adapters/web/index.js';
import { tokenFilePath } from '../../../adapters/web/login.js';
import { defaultConfig } from '../../../src/config/index.js';
import type { InboundMessage } from '../../../src/gateway/types.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The running web chat's token, sent by `call` unless a test logs in itself. */
let token = '';

interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  readFor?: number;
  /** Send no token: the request of someone who does not know it. */
  anonymous?: boolean;
}

/** A raw HTTP request, so tests control every header (Host, Origin, Cookie…). */
function call(url: string, options: CallOptions = {}): Promise<Reply> {
  const headers = { ...options.headers };
  if (!options.anonymous && token && !headers.authorization && !headers.cookie) headers.authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      res.on('end', done);
      // Event streams never end: read what came first, then hang up.
      if (options.readFor) setTimeout(() => (done(), req.destroy()), options.readFor);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const json = { 'content-type': 'application/json' };

/** Opens an event stream and keeps it open: resolves with its status once the headers arrive. */
function openStream(url: string): Promise<{ status: number; body: () => string; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, body: () => body, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('web chat server: safety and API', () => {
  let home: string;
  let adapter: WebAdapter | undefined;
  let received: InboundMessage[];

  let logged: string[];

  async function start(web: Partial<ReturnType<typeof defaultConfig>['platforms']['web']> = {}): Promise<string> {
    const config = defaultConfig();
    Object.assign(config.platforms.web, { port: 0, ...web });
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    adapter = createWebAdapter({ config, paths: { home, config: join(home, 'config.yaml'), env: join(home, '.env') }, logger });
    await adapter.start(async (message) => {
      received.push(message);
    }, new AbortController().signal);
    token = new URL(adapter.openUrl!).searchParams.get('token') ?? '';
    return adapter.url!;
  }

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-server-'));
    received = [];
    logged = [];
  });
  afterEach(async () => {
    await adapter?.stop();
    adapter = undefined;
    token = '';
    rmSync(home, { recursive: true, force: true });
  });

  it('knows which hosts only this machine can reach', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', 'example.com', '']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('refuses to start on an address other machines can reach unless platforms.web.token is set', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5']) {
      await expect(start({ host })).rejects.toMatchObject({ code: 'WEB_TOKEN_REQUIRED', message: expect.stringContaining('platforms.web.token') });
    }
  });

  it('says which port is taken and how to change it', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(start({ port })).rejects.toMatchObject({ code: 'WEB_LISTEN_FAILED', message: expect.stringContaining('platforms.web.port') });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('with a token, every request needs it: header, or the cookie that ?token= sets once', async () => {
    const url = await start({ token: 's3cret' });
    expect(adapter!.openUrl).toBe(`${url}?token=s3cret`);
    for (const path of ['', 'app.js', 'api/threads', 'api/status']) expect((await call(url + path, { anonymous: true })).status, path).toBe(401);
    expect((await call(url + 'api/threads', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await call(url + 'api/threads', { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);

    const login = await call(`${url}?thread=abc&token=s3cret`, { anonymous: true });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/?thread=abc');
    const cookie = String(login.headers['set-cookie']);
    // Named after the port: two gateways on one machine keep their own cookies.
    const port = new URL(url).port;
    expect(cookie).toMatch(new RegExp(`^hermes_web_token_${port}=s3cret;`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect((await call(url, { headers: { cookie: 'hermes_web_token_1=s3cret' } })).status).toBe(401);
    const page = await call(url, { headers: { cookie: `hermes_web_token_${port}=s3cret` } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<textarea id="input"');
  });

  it('on loopback, with the login or without it, answers only to loopback host names: no DNS rebinding', async () => {
    for (const auth of ['token', 'none'] as const) {
      const url = await start({ auth });
      const port = new URL(url).port;
      expect((await call(url + 'api/threads', { headers: { host: `localhost:${port}` } })).status, auth).toBe(200);
      const rebound = await call(url + 'api/threads', { headers: { host: `attacker.example:${port}` } });
      expect(rebound.status, auth).toBe(403);
      await adapter!.stop();
    }
  });

  it('refuses writes from other sites: foreign Origin, cross-site fetch metadata, or a body that is not JSON', async () => {
    const url = await start();
    const { id } = JSON.parse((await call(url + 'api/threads', { method: 'POST', headers: json, body: '{}' })).body) as { id: string };
    const post = (headers: Record<string, string>) =>
      call(`${url}api/threads/${id}/messages`, { method: 'POST', headers, body: JSON.stringify({ text: 'rm -rf ~' }) });
    expect((await post({ ...json, origin: 'http://attacker.example' })).status).toBe(403);
    expect((await post({ ...json, origin: 'null' })).status).toBe(403);
    expect((await post({ ...json, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ 'content-type': 'text/plain' })).status).toBe(415);
    expect(received).toEqual([]);
    expect((await post({ ...json, origin: url.replace(/\/$/, ''), 'sec-fetch-site': 'same-origin' })).status).toBe(202);
    expect(received).toHaveLength(1);
  });

  it('lets no stranger rename or delete a thread: no token, another site, a form body, or an id that walks out of the folder', async () => {
    const url = await start({ token: 's3cret' });
    const { id } = JSON.parse((await call(url + 'api/threads', { method: 'POST', headers: json, body: '{}' })).body) as { id: string };
    const rename = JSON.stringify({ title: 'owned' });
    const attempts: Array<[string, CallOptions]> = [
      ['PATCH', { anonymous: true, headers: json, body: rename }],
      ['DELETE', { anonymous: true, headers: json }],
      ['PATCH', { headers: { ...json, origin: 'http://attacker.example' }, body: rename }],
      ['DELETE', { headers: { ...json, 'sec-fetch-site': 'cross-site' } }],
      ['DELETE', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
      ['PATCH', { headers: { 'content-type': 'text/plain' }, body: rename }],
    ];
    for (const [method, options] of attempts) {
      const reply = await call(`${url}api/threads/${id}`, { ...options, method });
      expect([401, 403, 415], `${method} ${JSON.stringify(options.headers)}`).toContain(reply.status);
    }
    expect((await call(`${url}api/threads/${id}`)).status).toBe(200);
    expect((await call(url + 'api/threads')).body).not.toContain('owned');

    // An id that names a path is no thread: nothing outside the transcript folder goes.
    const marker = join(home, 'config.yaml');
    writeFileSync(marker, 'kept: true\n');
    for (const bad of ['..%2Fconfig.yaml', '..%2F..%2Fconfig', '%2E%2E', 'a%2Fb']) {
      expect((await call(`${url}api/threads/${bad}`, { method: 'DELETE', headers: json })).status, bad).toBe(404);
    }
    expect(readFileSync(marker, 'utf8')).toBe('kept: true\n');

    // The page itself may: same origin, JSON, the token.
    expect((await call(`${url}api/threads/${id}`, { method: 'DELETE', headers: { ...json, origin: url.replace(/\/$/, '') } })).status).toBe(200);
    expect((await call(`${url}api/threads/${id}`)).status).toBe(404);
  });

  it('hands a message to the gateway as an InboundMessage of thread key web:<id>', async () => {
    const url = await start();
    const { id } = JSON.parse((await call(url + 'api/threads', { method: 'POST', headers: json, body: '{}' })).body) as { id: string };
    const sent = await call(`${url}api/threads/${id}/messages`, { method: 'POST', headers: json, body: JSON.stringify({ text: 'hi there' }) });
    expect(sent.status).toBe(202);
    expect(received).toEqual([
      {
        platform: 'web',
        threadKey: `web:${id}`,
        chat: { id, type: 'dm' },
        user: { id: 'web-local', name: 'You' },
        text: 'hi there',
        messageId: expect.stringMatching(/^u-/),
        replyTo: { threadKey: `web:${id}`, threadId: id },
      },
    ]);
    await adapter!.send(adapter!.thread.decode(received[0].replyTo)!, 'hello **back**');
    const thread = JSON.parse((await call(`${url}api/threads/${id}`)).body) as { entries: Array<{ kind: string; text: string }> };
    expect(thread.entries.map((entry) => [entry.kind, entry.text])).toEqual([
      ['user', 'hi there'],
      ['assistant', 'hello **back**'],
    ]);
  });

  it('answers bad requests with what to send instead', async () => {
    const url = await start();
    expect((await call(`${url}api/threads/nope/messages`, { method: 'POST', headers: json, body: '{"text":"x"}' })).status).toBe(404);
    const { id } = JSON.parse((await call(url + 'api/threads', { method: 'POST', headers: json, body: '{}' })).body) as { id: string };
    const empty = await call(`${url}api/threads/${id}/messages`, { method: 'POST', headers: json, body: '{"text":"  "}' });
    expect(empty.status).toBe(400);
    expect(empty.body).toContain('non-empty');
    expect((await call(`${url}api/threads/${id}/messages`, { method: 'POST', headers: json, body: 'not json' })).status).toBe(400);
  });

  it('streams a thread as server-sent events, starting with a snapshot', async () => {
    const url = await start();
    const { id } = JSON.parse((await call(url + 'api/threads', { method: 'POST', headers: json, body: '{}' })).body) as { id: string };
    await call(`${url}api/threads/${id}/messages`, { method: 'POST', headers: json, body: '{"text":"first"}' });
    const stream = await call(`${url}api/threads/${id}/events`, { readFor: 300 });
    expect(stream.headers['content-type']).toBe('text/event-stream');
    expect(stream.body).toMatch(/^event: snapshot\ndata: \{"type":"snapshot","entries":\[\{"kind":"user"/);
  });

  it('holds at most platforms.web.max_streams event streams: past it a 503 that says so, while the rest keeps working', async () => {
    const url = await start({ max_streams: 3 });
    const { id } = JSON.parse((await call(url + 'api/threads', { method: 'POST', headers: json, body: '{}' })).body) as { id: string };
    const events = `${url}api/threads/${id}/events`;
    const open = [await openStream(events), await openStream(events), await openStream(events)];
    expect(open.map((stream) => stream.status)).toEqual([200, 200, 200]);
    const refused = await call(events);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toEqual({
      error: 'The web chat already has 3 live streams open (platforms.web.max_streams): close some of its tabs, or raise the limit.',
    });
    // The page and the API still answer, and the open streams still get the thread's events.
    expect((await call(url)).status).toBe(200);
    const sent = await call(`${url}api/threads/${id}/messages`, { method: 'POST', headers: json, body: '{"text":"still here"}' });
    expect(sent.status).toBe(202);
    await until(() => open.every((stream) => stream.body().includes('still here')));
    // A closed stream gives its place back.
    open.shift()!.close();
    let again = await openStream(events);
    while (again.status === 503) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await openStream(events);
    }
    expect(again.status).toBe(200);
    open.push(again);
    expect((await call(events)).status).toBe(503);
    for (const stream of open) stream.close();
  });

  it('serves the page under a strict Content-Security-Policy, the vendored libraries, and nothing else from disk', async () => {
    const url = await start();
    const page = await call(url);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("require-trusted-types-for 'script'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const marked = await call(url + 'vendor/marked.js');
    expect(marked.status).toBe(200);
    expect(marked.headers['content-type']).toMatch(/^text\/javascript/);
    expect(marked.body).toContain('export{');
    expect((await call(url + 'vendor/purify.js')).body).toContain('export { purify_default as default }');
    const favicon = await call(url + 'favicon.ico');
    expect(favicon.status).toBe(200);
    expect(favicon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    for (const path of ['package.json', 'vendor/../../package.json', '%2e%2e/package.json', 'static/app.js', 'web-adapter.ts']) {
      expect((await call(url + path)).status, path).toBe(404);
    }
  });

  it('is built only when platforms.web.enabled, and announces the address it listens on', async () => {
    const config = defaultConfig();
    config.platforms.web.port = 0;
    const paths = { home, config: join(home, 'config.yaml'), env: join(home, '.env') };
    config.platforms.web.enabled = false;
    expect(createWebChat({ config, paths })).toBeUndefined();
    config.platforms.web.enabled = true;
    const lines: string[] = [];
    adapter = createWebChat({ config, paths, announce: (line) => lines.push(line) });
    await adapter!.start(async () => undefined, new AbortController().signal);
    expect(lines).toEqual([`  web chat: ${adapter!.url}?token=${readFileSync(tokenFilePath(home), 'utf8').trim()}  (open it in a browser)`]);
    expect(adapter!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });
});

describe('web chat login on loopback (as Jupyter does)', () => {
  let home: string;
  let adapter: WebAdapter | undefined;
  const paths = () => ({ home, config: join(home, 'config.yaml'), env: join(home, '.env') });

  async function startChat(web: Partial<ReturnType<typeof defaultConfig>['platforms']['web']> = {}) {
    const config = defaultConfig();
    Object.assign(config.platforms.web, { port: 0, ...web });
    const lines: string[] = [];
    const logged: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    adapter = createWebChat({ config, paths: paths(), logger, announce: (line) => lines.push(line) })!;
    await adapter.start(async () => undefined, new AbortController().signal);
    return { url: adapter.url!, lines, logged };
  }

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-login-'));
  });
  afterEach(async () => {
    await adapter?.stop();
    adapter = undefined;
    rmSync(home, { recursive: true, force: true });
  });

  it('the login lasts: the cookie has platforms.web.login_days as its Max-Age; a browser without it gets a page asking for the token, the API a JSON 401', async () => {
    const { url, lines } = await startChat();
    const printed = /web chat: (\S+)/.exec(lines[0])![1];
    const login = await call(printed, { anonymous: true });
    expect(String(login.headers['set-cookie'])).toMatch(/Max-Age=2592000/);
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const asked = await call(url + '?thread=abc', { anonymous: true, headers: browser });
    expect(asked.status).toBe(401);
    expect(asked.headers['content-type']).toMatch(/^text\/html/);
    expect(asked.body).toMatch(/<form method="get" action="\/">/);
    expect(asked.body).toContain('name="token"');
    expect(asked.body).toContain(tokenFilePath(home));
    expect(asked.body).not.toContain('not the right one');
    // The form's answer is ?token=…: a wrong one says so, a right one logs in like the printed address.
    const wrong = await call(`${url}?token=${'0'.repeat(48)}`, { anonymous: true, headers: browser });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('not the right one');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const api = await call(url + 'api/threads', { anonymous: true, headers: browser });
    expect(api.status).toBe(401);
    expect(api.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(api.body)).toMatchObject({ error: expect.stringContaining('needs its token') });
    // A hostile token in the path is not written into the page as HTML.
    const hostile = await call(url + '%22%3E%3Cscript%3Ealert(1)%3C/script%3E', { anonymous: true, headers: browser });
    expect(hostile.body).not.toContain('<script>');
  });

  it('platforms.web.login_days: 0 makes the login cookie end with the browser session', async () => {
    const { lines } = await startChat({ login_days: 0 });
    const printed = /web chat: (\S+)/.exec(lines[0])![1];
    const login = await call(printed, { anonymous: true });
    expect(login.status).toBe(303);
    expect(String(login.headers['set-cookie'])).not.toMatch(/Max-Age|Expires/i);
  });

  it('refuses a loopback request without the token with 401, and the printed address logs the browser in', async () => {
    const { url, lines } = await startChat();
    for (const path of ['', 'api/threads', 'api/status', 'api/threads/abc/events']) {
      const refused = await call(url + path, { anonymous: true });
      expect(refused.status, path).toBe(401);
      expect(refused.body).toContain(tokenFilePath(home));
    }
    // The address as printed, followed the way a browser does: the redirect, then the cookie.
    const printed = /web chat: (\S+)/.exec(lines[0])![1];
    expect(printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
    const login = await call(printed, { anonymous: true });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/');
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    expect(String(login.headers['set-cookie'])).toMatch(/HttpOnly/);
    const page = await call(new URL(String(login.headers.location), url).href, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<textarea id="input"');
    const created = await call(url + 'api/threads', { method: 'POST', headers: { ...json, cookie }, body: '{}' });
    expect(created.status).toBe(201);
    const thread = await call(url + `api/threads/${JSON.parse(created.body).id as string}`, { headers: { cookie } });
    expect(JSON.parse(thread.body)).toMatchObject({ entries: [], busy: false });
    // A wrong token in the address logs nobody in.
    expect((await call(`${url}?token=${'0'.repeat(48)}`, { anonymous: true })).status).toBe(401);
  });

  it('makes the token once, in HERMES_HOME/web/token with mode 0600, and reuses it on later starts', async () => {
    const first = await startChat();
    const file = tokenFilePath(home);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'web')).mode & 0o077).toBe(0);
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(first.lines[0]).toContain(`?token=${token}`);
    await adapter!.stop();
    const second = await startChat();
    expect(readFileSync(file, 'utf8').trim()).toBe(token);
    expect(second.lines[0]).toContain(`?token=${token}`);
    expect((await call(second.url + 'api/threads', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('platforms.web.token sets the token, and no file is made', async () => {
    const { url, lines } = await startChat({ token: 'chosen-token' });
    expect(lines[0]).toBe(`  web chat: ${url}?token=chosen-token  (open it in a browser)`);
    expect(() => statSync(tokenFilePath(home))).toThrow(/ENOENT/);
    expect((await call(url + 'api/threads', { anonymous: true })).status).toBe(401);
    expect((await call(url + 'api/threads', { headers: { authorization: 'Bearer chosen-token' } })).status).toBe(200);
  });

  it('will not use a token file others can read, or one that is a symlink, and says what to do', async () => {
    const file = tokenFilePath(home);
    await startChat();
    await adapter!.stop();
    adapter = undefined;
    const { chmodSync } = await import('node:fs');
    chmodSync(file, 0o644);
    await expect(startChat()).rejects.toMatchObject({ code: 'WEB_TOKEN_FILE', message: expect.stringMatching(/mode 644.*delete it/) });
    rmSync(file);
    const elsewhere = join(home, 'planted');
    writeFileSync(elsewhere, 'a'.repeat(48), { mode: 0o600 });
    symlinkSync(elsewhere, file);
    await expect(startChat()).rejects.toMatchObject({ code: 'WEB_TOKEN_FILE', message: expect.stringContaining('delete it') });
  });

  it('auth: none on loopback turns the login off, and says so on the console and in the log', async () => {
    const { url, lines, logged } = await startChat({ auth: 'none' });
    expect(lines[0]).toBe(`  web chat: ${url}  (open it in a browser)`);
    expect(lines[1]).toMatch(/^ {2}web chat: WARNING: platforms\.web\.auth is none: the web chat has no login, so every user of this machine can use it/);
    const warnings = logged.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.level === 40);
    expect(warnings.map((entry) => entry.msg)).toEqual([expect.stringContaining('platforms.web.auth is none')]);
    expect((await call(url + 'api/threads', { anonymous: true })).status).toBe(200);
    expect(() => statSync(tokenFilePath(home))).toThrow(/ENOENT/);
  });

  it('auth: none on an address other machines can reach refuses to start, token or not', async () => {
    for (const web of [{ host: '0.0.0.0' }, { host: '0.0.0.0', token: 'set' }, { host: '::' }]) {
      await expect(startChat({ ...web, auth: 'none' })).rejects.toMatchObject({
        code: 'WEB_AUTH_NONE_OFF_LOOPBACK',
        message: expect.stringContaining('platforms.web.auth'),
      });
    }
  });
});
