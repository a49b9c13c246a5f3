import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * Fake web search APIs on 127.0.0.1, each speaking its service's real request and response
 * format: SearXNG's JSON API, the Brave Search web endpoint and Tavily's search endpoint.
 */

export interface FakeSearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeSearchApi {
  /** The base URL to configure (`web.searxng_url`, `web.brave_api_url`, `web.tavily_api_url`). */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const sample = (query: string, n: number): FakeSearchResult[] =>
  Array.from({ length: n }, (_, i) => ({
    title: `${query} result ${i + 1}`,
    url: `https://example.org/${encodeURIComponent(query)}/${i + 1}`,
    snippet: `About ${query}, number ${i + 1}.`,
  }));

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

async function listen(handler: (req: RecordedRequest, res: ServerResponse) => void, path: string): Promise<FakeSearchApi> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      handler(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** SearXNG: `GET /search?q=…&format=json`; 403 when the JSON format is not asked for (as a default instance does). */
export function startFakeSearxng(results = 10): Promise<FakeSearchApi> {
  return listen((req, res) => {
    if (req.path !== '/search') return send(res, 404, { error: 'not found' });
    if (req.query.get('format') !== 'json') {
      res.writeHead(403, { 'Content-Type': 'text/html' });
      return res.end('<html><body>403 Forbidden</body></html>');
    }
    const q = req.query.get('q') ?? '';
    send(res, 200, {
      query: q,
      number_of_results: 0,
      results: sample(q, results).map((r, i) => ({
        url: r.url,
        title: r.title,
        content: r.snippet,
        engine: 'duckduckgo',
        parsed_url: ['https', 'example.org', `/${q}/${i + 1}`, '', '', ''],
        template: 'default.html',
        engines: ['duckduckgo'],
        positions: [i + 1],
        score: 1 / (i + 1),
        category: 'general',
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    });
  }, '');
}

/** Brave Search: `GET /res/v1/web/search?q=…&count=N` with `X-Subscription-Token`. */
export function startFakeBrave(key: string): Promise<FakeSearchApi> {
  return listen((req, res) => {
    if (req.path !== '/res/v1/web/search') return send(res, 404, { message: 'not found' });
    if (req.headers['x-subscription-token'] !== key) {
      return send(res, 422, {
        type: 'ErrorResponse',
        error: { id: 'c1b2', status: 422, code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' },
        time: 1700000000,
      });
    }
    const q = req.query.get('q') ?? '';
    const count = Math.min(Number(req.query.get('count') ?? 20), 20);
    send(res, 200, {
      type: 'search',
      query: { original: q, show_strict_warning: false, is_navigational: false, spellcheck_off: true, country: 'us' },
      mixed: { type: 'mixed', main: [], top: [], side: [] },
      web: {
        type: 'search',
        results: sample(q, count).map((r) => ({
          title: r.title,
          url: r.url,
          is_source_local: false,
          is_source_both: false,
          description: r.snippet,
          profile: { name: 'Example', url: r.url, long_name: 'example.org', img: '' },
          language: 'en',
          family_friendly: true,
          type: 'search_result',
          subtype: 'generic',
          meta_url: { scheme: 'https', netloc: 'example.org', hostname: 'example.org', favicon: '', path: '' },
        })),
        family_friendly: true,
      },
    });
  }, '/res/v1/web/search');
}

/** Tavily: `POST /search` with a JSON body and `Authorization: Bearer tvly-…`. */
export function startFakeTavily(key: string): Promise<FakeSearchApi> {
  return listen((req, res) => {
    if (req.path !== '/search' || req.method !== 'POST') return send(res, 404, { detail: 'Not Found' });
    let body: { query?: string; max_results?: number; api_key?: string };
    try {
      body = JSON.parse(req.body) as typeof body;
    } catch {
      return send(res, 400, { detail: { error: 'Invalid JSON body' } });
    }
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${key}` && body.api_key !== key) {
      return send(res, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
    }
    if (!body.query) return send(res, 400, { detail: { error: 'Query is missing.' } });
    const q = body.query;
    send(res, 200, {
      query: q,
      follow_up_questions: null,
      answer: null,
      images: [],
      results: sample(q, Math.min(body.max_results ?? 5, 20)).map((r, i) => ({
        title: r.title,
        url: r.url,
        content: r.snippet,
        score: 0.9 - i / 100,
        raw_content: null,
      })),
      response_time: 0.42,
    });
  }, '/search');
}
