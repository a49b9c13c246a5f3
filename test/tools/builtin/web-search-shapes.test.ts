import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { webSearchTool } from '../../../src/tools/index.js';
import { makeToolContext } from '../../helpers/tool-context.js';

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A SearXNG-like endpoint on loopback that answers `body` as JSON to every search. */
async function searxngAnswering(body: string): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('web_search reads what a provider answers, whatever its shape', () => {
  it('a body of another shape (null, a list, results not a list) is no results, not a crash', async () => {
    for (const body of ['null', '[1, 2]', '{"results": "none"}', '{}']) {
      const ctx = makeToolContext({ config: { web: { searxng_url: await searxngAnswering(body) } } });
      expect(await webSearchTool().handler({ query: 'q' }, ctx), body).toEqual({ success: true, data: { web: [] } });
    }
  });

  it('entries that are not objects are left out; fields that are not text are empty', async () => {
    const body = JSON.stringify({ results: [1, null, { title: 5, url: 'https://a.example/', content: 'about a' }, { title: 'B' }] });
    const ctx = makeToolContext({ config: { web: { searxng_url: await searxngAnswering(body) } } });
    expect(await webSearchTool().handler({ query: 'q' }, ctx)).toEqual({
      success: true,
      data: {
        web: [
          { title: '', url: 'https://a.example/', description: 'about a' },
          { title: 'B', url: '', description: '' },
        ],
      },
    });
  });
});
