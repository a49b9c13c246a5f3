import { afterEach, describe, expect, it, vi } from 'vitest';
import { webSearchTool } from '../../../src/tools/builtin/index.js';
import { NO_PROVIDER_ERROR } from '../../../src/tools/builtin/web/search-providers.js';
import { startFakeBrave, startFakeSearxng, startFakeTavily, type FakeSearchApi } from '../../fakes/web-search-apis.js';
import { makeToolContext } from '../../helpers/tool-context.js';

const search = webSearchTool();
const servers: FakeSearchApi[] = [];
const track = async (server: Promise<FakeSearchApi>) => {
  const started = await server;
  servers.push(started);
  return started;
};

afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function noKeys() {
  vi.stubEnv('BRAVE_API_KEY', '');
  vi.stubEnv('TAVILY_API_KEY', '');
}

describe('web_search', () => {
  it('asks SearXNG for JSON and maps title, url and content', async () => {
    noKeys();
    const searxng = await track(startFakeSearxng());
    const ctx = makeToolContext({ config: { web: { searxng_url: searxng.url } } });
    const result = await search.handler({ query: 'rust async', limit: 3 }, ctx);
    expect(result).toEqual({
      success: true,
      data: {
        web: [1, 2, 3].map((i) => ({
          title: `rust async result ${i}`,
          url: `https://example.org/rust%20async/${i}`,
          description: `About rust async, number ${i}.`,
        })),
      },
    });
    expect(searxng.requests[0].query.get('q')).toBe('rust async');
    expect(searxng.requests[0].query.get('format')).toBe('json');
  });

  it('uses Brave with the key from BRAVE_API_KEY in X-Subscription-Token', async () => {
    noKeys();
    vi.stubEnv('BRAVE_API_KEY', 'brave-key-1');
    const brave = await track(startFakeBrave('brave-key-1'));
    const ctx = makeToolContext({ config: { web: { brave_api_url: brave.url } } });
    const result = (await search.handler({ query: 'node 20' }, ctx)) as { data: { web: unknown[] } };
    expect(result.data.web).toHaveLength(5);
    expect(result.data.web[0]).toEqual({ title: 'node 20 result 1', url: 'https://example.org/node%2020/1', description: 'About node 20, number 1.' });
    expect(brave.requests[0].headers['x-subscription-token']).toBe('brave-key-1');
    expect(brave.requests[0].query.get('count')).toBe('5');
  });

  it('uses Tavily with a POSTed JSON query and a bearer key from TAVILY_API_KEY', async () => {
    noKeys();
    vi.stubEnv('TAVILY_API_KEY', 'tvly-abc');
    const tavily = await track(startFakeTavily('tvly-abc'));
    const ctx = makeToolContext({ config: { web: { tavily_api_url: `${tavily.url}` } } });
    const result = (await search.handler({ query: 'python 3.13', limit: 2 }, ctx)) as { data: { web: unknown[] } };
    expect(result.data.web).toEqual([
      { title: 'python 3.13 result 1', url: 'https://example.org/python%203.13/1', description: 'About python 3.13, number 1.' },
      { title: 'python 3.13 result 2', url: 'https://example.org/python%203.13/2', description: 'About python 3.13, number 2.' },
    ]);
    expect(JSON.parse(tavily.requests[0].body)).toMatchObject({ query: 'python 3.13', max_results: 2 });
  });

  it('auto picks the first configured provider: SearXNG, then Brave, then Tavily', async () => {
    const searxng = await track(startFakeSearxng());
    const brave = await track(startFakeBrave('b'));
    const tavily = await track(startFakeTavily('t'));
    vi.stubEnv('BRAVE_API_KEY', 'b');
    vi.stubEnv('TAVILY_API_KEY', 't');
    const web = { searxng_url: searxng.url, brave_api_url: brave.url, tavily_api_url: tavily.url };
    await search.handler({ query: 'q' }, makeToolContext({ config: { web } }));
    expect([searxng.requests.length, brave.requests.length, tavily.requests.length]).toEqual([1, 0, 0]);
    await search.handler({ query: 'q' }, makeToolContext({ config: { web: { ...web, searxng_url: '' } } }));
    expect([searxng.requests.length, brave.requests.length, tavily.requests.length]).toEqual([1, 1, 0]);
    vi.stubEnv('BRAVE_API_KEY', '');
    await search.handler({ query: 'q' }, makeToolContext({ config: { web: { ...web, searxng_url: '' } } }));
    expect([searxng.requests.length, brave.requests.length, tavily.requests.length]).toEqual([1, 1, 1]);
    await search.handler({ query: 'q' }, makeToolContext({ config: { web: { ...web, search_provider: 'brave' } } }));
    expect(brave.requests.length).toBe(1);
  });

  it('with no provider configured, says exactly what to set', async () => {
    noKeys();
    const result = await search.handler({ query: 'anything' }, makeToolContext());
    expect(result).toEqual({ error: NO_PROVIDER_ERROR });
    expect(NO_PROVIDER_ERROR).toMatch(/web\.searxng_url.*BRAVE_API_KEY.*TAVILY_API_KEY/);
  });

  it('a provider named but not configured is an error naming the missing setting', async () => {
    noKeys();
    const result = (await search.handler({ query: 'x' }, makeToolContext({ config: { web: { search_provider: 'tavily' } } }))) as { error: string };
    expect(result.error).toMatch(/TAVILY_API_KEY is not set/);
  });

  it('a rejected key comes back as an error with the provider\'s answer', async () => {
    noKeys();
    vi.stubEnv('BRAVE_API_KEY', 'wrong');
    const brave = await track(startFakeBrave('right'));
    const result = (await search.handler({ query: 'x' }, makeToolContext({ config: { web: { brave_api_url: brave.url } } }))) as { error: string };
    expect(result.error).toMatch(/^web_search: brave failed: Brave Search answered HTTP 422: .*SUBSCRIPTION_TOKEN_INVALID/);
  });

  it('an unreachable provider is an error, not a throw', async () => {
    noKeys();
    const searxng = await track(startFakeSearxng());
    await searxng.close();
    const result = (await search.handler({ query: 'x' }, makeToolContext({ config: { web: { searxng_url: searxng.url } } }))) as { error: string };
    expect(result.error).toMatch(/^web_search: searxng failed: .*ECONNREFUSED/);
  });

  it('rejects a missing query', async () => {
    const result = (await search.handler({ limit: 3 }, makeToolContext())) as { error: string };
    expect(result.error).toMatch(/^Invalid arguments for web_search: query/);
  });
});
