import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebAdapter, createWebChat, isLoopbackHost, type WebAdapter } from '../../../adapters/web/index.js';
import { defaultConfig } from '../../../src/config/index.js';
import type { InboundMessage } from '../../../src/gateway/types.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request, so tests control every header (Host, Origin, Cookie…). */
function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; readFor?: number } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
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

describe('web chat server: safety and API', () => {
  let home: string;
  let adapter: WebAdapter | undefined;
  let received: InboundMessage[];

  async function start(web: { host?: string; token?: string; port?: number } = {}): Promise<string> {
    const config = defaultConfig();
    Object.assign(config.platforms.web, { port: 0, ...web });
    adapter = createWebAdapter({ config, paths: { home, config: join(home, 'config.yaml'), env: join(home, '.env') } });
    await adapter.start(async (message) => {
      received.push(message);
    }, new AbortController().signal);
    return adapter.url!;
  }

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-server-'));
    received = [];
  });
  afterEach(async () => {
    await adapter?.stop();
    adapter = undefined;
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
    for (const path of ['', 'app.js', 'api/threads', 'api/status']) expect((await call(url + path)).status, path).toBe(401);
    expect((await call(url + 'api/threads', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await call(url + 'api/threads', { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);

    const login = await call(`${url}?thread=abc&token=s3cret`);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/?thread=abc');
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/hermes_web_token=s3cret/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await call(url, { headers: { cookie: 'hermes_web_token=s3cret' } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<textarea id="input"');
  });

  it('without a token (loopback), answers only to loopback host names: no DNS rebinding', async () => {
    const url = await start();
    const port = new URL(url).port;
    expect((await call(url + 'api/threads', { headers: { host: `localhost:${port}` } })).status).toBe(200);
    const rebound = await call(url + 'api/threads', { headers: { host: `attacker.example:${port}` } });
    expect(rebound.status).toBe(403);
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
    await adapter!.send(received[0].replyTo, 'hello **back**');
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
    expect(lines).toEqual([`  web chat: ${adapter!.url}  (open it in a browser)`]);
    expect(adapter!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });
});
