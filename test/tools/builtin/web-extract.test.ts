import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webExtractTool } from '../../../src/tools/builtin/index.js';
import { safeFetch, type SafeFetchOptions } from '../../../src/tools/builtin/web/safe-fetch.js';
import { blockedRange } from '../../../src/tools/builtin/web/address-guard.js';
import { startFakeSite, type FakeSite } from '../../fakes/web-site.js';
import { makeToolContext } from '../../helpers/tool-context.js';

const extract = webExtractTool();
let site: FakeSite;
/** A second site on another loopback address, treated as public in the redirect tests. */
let outside: FakeSite;

beforeAll(async () => {
  site = await startFakeSite('127.0.0.1');
  outside = await startFakeSite('127.0.0.2');
});
afterAll(async () => {
  await site.close();
  await outside.close();
});

type Page = { url: string; title: string; content?: string; error?: string };
const open = makeToolContext;
const local = (web: Record<string, unknown> = {}) => open({ config: { web: { allow_private_addresses: true, ...web } } });
async function one(url: string, ctx = local(), extra: Record<string, unknown> = {}): Promise<Page> {
  const result = (await extract.handler({ urls: [url], ...extra }, ctx)) as { results: Page[] };
  expect(result.results).toHaveLength(1);
  return result.results[0];
}

describe('web_extract', () => {
  it('turns an HTML article into markdown with its title, without scripts or navigation', async () => {
    const page = await one(`${site.origin}/article`);
    expect(page.title).toBe('The Fox Report');
    expect(page.url).toBe(`${site.origin}/article`);
    expect(page.content).toContain('The quick brown fox jumps over the lazy dog.');
    expect(page.content).toContain('**quick**');
    expect(page.content).toContain('_brown_');
    expect(page.content).toMatch(/## Findings/);
    expect(page.content).toMatch(/-\s+Foxes jump\./);
    expect(page.content).toContain('```\nprint("fox")\n```');
    expect(page.content).toContain(`[more about foxes](${site.origin}/more)`);
    expect(page.content).not.toContain('alert(');
    expect(page.content).not.toContain('color:red');
    expect(page).not.toHaveProperty('error');
  });

  it('passes plain text and JSON through, decodes gzip and the named charset', async () => {
    expect(await one(`${site.origin}/notes.txt`)).toEqual({ url: `${site.origin}/notes.txt`, title: '', content: 'plain notes\nline two\n' });
    expect((await one(`${site.origin}/data.json`)).content).toBe('{"items":[1,2,3]}');
    expect((await one(`${site.origin}/gzip`)).content).toContain('The quick brown fox');
    expect((await one(`${site.origin}/latin1`)).content).toBe('café\n');
  });

  it('refuses binary content, by content type and by sniffing untyped bodies', async () => {
    expect((await one(`${site.origin}/image.png`)).error).toMatch(/refused binary content \(image\/png\)/);
    expect((await one(`${site.origin}/untyped-binary`)).error).toMatch(/refused binary content/);
  });

  it('follows redirects up to web.max_redirects', async () => {
    expect((await one(`${site.origin}/redirect`)).title).toBe('The Fox Report');
    expect((await one(`${site.origin}/loop`)).error).toMatch(/too many redirects \(more than web\.max_redirects = 5\)/);
    expect((await one(`${site.origin}/redirect`, local({ max_redirects: 0 }))).error).toMatch(/too many redirects/);
  });

  it('stops reading at web.max_bytes and says the page was cut', async () => {
    const page = await one(`${site.origin}/huge`, local({ max_bytes: 100_000 }), { char_limit: 1_000_000 });
    expect(page.content!.length).toBeLessThan(101_000);
    expect(page.content).toMatch(/\[page cut at 100000 bytes \(web\.max_bytes\)\]$/);
  });

  it('gives up after web.timeout', async () => {
    expect((await one(`${site.origin}/slow`, local({ timeout: 0.5 }))).error).toMatch(/no complete answer within 0\.5s \(web\.timeout\)/);
  });

  it('cuts content at char_limit, defaulting to web.extract_char_limit, with a note', async () => {
    const cut = await one(`${site.origin}/notes.txt`, local(), { char_limit: 5 });
    expect(cut.content).toMatch(/^plain\n\n\[content truncated: showing 5 of 21 characters\]$/);
    const byConfig = await one(`${site.origin}/notes.txt`, local({ extract_char_limit: 11 }));
    expect(byConfig.content).toMatch(/^plain notes\n\n\[content truncated/);
  });

  it('keeps the order of URLs and reports each failure in place', async () => {
    const result = (await extract.handler(
      { urls: [`${site.origin}/notes.txt`, `${site.origin}/missing`, 'not a url', 'ftp://x/y', `${site.origin}/data.json`] },
      local(),
    )) as { results: Page[] };
    expect(result.results.map((r) => r.url)).toEqual([
      `${site.origin}/notes.txt`,
      `${site.origin}/missing`,
      'not a url',
      'ftp://x/y',
      `${site.origin}/data.json`,
    ]);
    expect(result.results[0].content).toBe('plain notes\nline two\n');
    expect(result.results[1].error).toMatch(/HTTP 404/);
    expect(result.results[2].error).toMatch(/not a valid URL/);
    expect(result.results[3].error).toMatch(/only http and https/);
    expect(result.results[4].content).toBe('{"items":[1,2,3]}');
    expect(result.results[1]).not.toHaveProperty('content');
  });

  it('accepts a single URL string and rejects bad arguments with { error }', async () => {
    const result = (await extract.handler({ urls: `${site.origin}/notes.txt` }, local())) as { results: Page[] };
    expect(result.results[0].content).toBe('plain notes\nline two\n');
    expect(((await extract.handler({ urls: [] }, local())) as { error: string }).error).toMatch(/^Invalid arguments for web_extract: urls/);
    expect(((await extract.handler({}, local())) as { error: string }).error).toMatch(/urls/);
  });
});

describe('web_extract address checks (web.allow_private_addresses: false)', () => {
  it('refuses loopback, private, link-local, metadata and unspecified hosts before connecting', async () => {
    const ctx = open();
    const hitsBefore = site.hits.length;
    const urls = [
      `${site.origin}/article`,
      `http://localhost:${site.port}/article`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://0.0.0.0/',
      'http://10.1.2.3/',
      'http://192.168.1.1/',
      'http://[fd00:ec2::254]/',
      'http://2130706433/',
    ];
    const result = (await extract.handler({ urls }, ctx)) as { results: Page[] };
    for (const page of result.results) {
      expect(page.error, page.url).toMatch(/refused to fetch .*(loopback|private|linkLocal|uniqueLocal|unspecified) address/);
      expect(page.error).toContain('web.allow_private_addresses: true');
    }
    expect(result.results[1].error).toMatch(/refused to fetch localhost: 127\.0\.0\.1 is a loopback address/);
    expect(result.results[2].error).toMatch(/169\.254\.169\.254 is a linkLocal address/);
    expect(site.hits.length).toBe(hitsBefore);
  });

  it('re-checks every redirect hop: an allowed host cannot bounce the fetch to 127.0.0.1 or 169.254.169.254', async () => {
    const options: SafeFetchOptions = {
      timeoutMs: 5000,
      maxBytes: 1_000_000,
      maxRedirects: 5,
      allowPrivate: false,
      treatAsPublic: new Set([outside.host]),
    };
    // The first hop is allowed: the page itself comes back.
    const direct = await safeFetch(`${outside.origin}/notes.txt`, options);
    expect(direct.body.toString()).toBe('plain notes\nline two\n');
    const siteHits = site.hits.length;
    const to = (target: string) => `${outside.origin}/redirect?to=${encodeURIComponent(target)}`;
    await expect(safeFetch(to(`${site.origin}/article`), options)).rejects.toThrow(/refused to fetch 127\.0\.0\.1: 127\.0\.0\.1 is a loopback address/);
    await expect(safeFetch(to('http://169.254.169.254/latest/meta-data/'), options)).rejects.toThrow(/169\.254\.169\.254 is a linkLocal address/);
    await expect(safeFetch(to(`http://localhost:${site.port}/article`), options)).rejects.toThrow(/refused to fetch localhost/);
    expect(site.hits.length).toBe(siteHits);
    expect(outside.hits.filter((h) => h.startsWith('/redirect'))).toHaveLength(3);
  });

  // Only public unicast passes (undefined: not blocked).
  it.each([
    ['93.184.216.34', undefined],
    ['2606:2800:220:1:248:1893:25c8:1946', undefined],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['::ffff:10.0.0.1', 'private'],
    ['fe80::1', 'linkLocal'],
    ['::', 'unspecified'],
  ])('classifies the address %s as %s', (address, range) => {
    expect(blockedRange(address)).toBe(range);
  });
});

describe('web_extract interrupts', () => {
  it('an aborted turn ends the fetch with the reason', async () => {
    const controller = new AbortController();
    const ctx = makeToolContext({ signal: controller.signal, config: { web: { allow_private_addresses: true } } });
    const running = extract.handler({ urls: [`${site.origin}/slow`] }, ctx);
    setTimeout(() => controller.abort('user sent a new message'), 300);
    const result = (await running) as { results: Page[] };
    expect(result.results[0].error).toBe(`web_extract: ${site.origin}/slow: [execution interrupted — user sent a new message]`);
  });
});
