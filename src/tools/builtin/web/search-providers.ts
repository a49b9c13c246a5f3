import { z } from 'zod';
import type { HermesConfig } from '../../../config/schema.js';

/** One web result, in the shape scripts read: `r["title"]`, `r["url"]`, `r["description"]`. */
export interface WebResult {
  title: string;
  url: string;
  description: string;
}

/** A search API the gateway can ask. */
export interface SearchProvider {
  name: 'searxng' | 'brave' | 'tavily';
  search(query: string, limit: number, signal: AbortSignal): Promise<WebResult[]>;
}

type WebConfig = HermesConfig['web'];

/** Thrown when a provider answers with something other than results. */
export class SearchProviderError extends Error {
  override readonly name = 'SearchProviderError';
}

async function json(response: Response, provider: string): Promise<unknown> {
  const body = await response.text();
  if (!response.ok) {
    throw new SearchProviderError(`${provider} answered HTTP ${response.status}: ${body.slice(0, 300)}`);
  }
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new SearchProviderError(`${provider} did not answer JSON (starts with ${JSON.stringify(body.slice(0, 80))})`);
  }
}

/*
 * What a provider answers is read, never trusted: a field that is not text is empty, an
 * entry that is not an object is left out, and a body of another shape has no results.
 */
const text = z.string().catch('');
const hit = z.object({ title: text, url: text, content: text, description: text });
const hits = z
  .array(z.unknown())
  .catch([])
  .transform((items) =>
    items.flatMap((item) => {
      const read = hit.safeParse(item);
      return read.success ? [read.data] : [];
    }),
  );
/** SearXNG's and Tavily's answer: `{results: [...]}`. */
const resultsBody = z.object({ results: hits }).catch({ results: [] });
/** Brave's answer: `{web: {results: [...]}}`. */
const braveBody = z.object({ web: resultsBody }).catch({ web: { results: [] } });

/** SearXNG's JSON API: `GET /search?q=…&format=json` → `{results: [{title, url, content}]}`. */
function searxng(baseUrl: string): SearchProvider {
  return {
    name: 'searxng',
    async search(query, limit, signal) {
      const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const response = await fetch(url, { signal, headers: { Accept: 'application/json' } });
      const body = resultsBody.parse(await json(response, 'SearXNG'));
      return body.results.slice(0, limit).map((r) => ({ title: r.title, url: r.url, description: r.content }));
    },
  };
}

/** Brave Search: `GET …/web/search?q=…&count=N` with `X-Subscription-Token` → `{web: {results: [{title, url, description}]}}`. */
function brave(apiUrl: string, key: string): SearchProvider {
  return {
    name: 'brave',
    async search(query, limit, signal) {
      const url = new URL(apiUrl);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(limit, 20)));
      const response = await fetch(url, {
        signal,
        headers: { Accept: 'application/json', 'X-Subscription-Token': key },
      });
      const body = braveBody.parse(await json(response, 'Brave Search'));
      return body.web.results.slice(0, limit).map((r) => ({ title: r.title, url: r.url, description: r.description }));
    },
  };
}

/** Tavily: `POST …/search` with a JSON body → `{results: [{title, url, content}]}`. */
function tavily(apiUrl: string, key: string): SearchProvider {
  return {
    name: 'tavily',
    async search(query, limit, signal) {
      const response = await fetch(apiUrl, {
        method: 'POST',
        signal,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${key}` },
        body: JSON.stringify({ query, max_results: Math.min(limit, 20), search_depth: 'basic' }),
      });
      const body = resultsBody.parse(await json(response, 'Tavily'));
      return body.results.slice(0, limit).map((r) => ({ title: r.title, url: r.url, description: r.content }));
    },
  };
}

/** What to set to get a provider, word for word in the error. */
export const NO_PROVIDER_ERROR =
  'web_search: no search provider is configured. Set one of: web.searxng_url in config.yaml ' +
  '(a SearXNG instance with the JSON format enabled), BRAVE_API_KEY (Brave Search API) or ' +
  'TAVILY_API_KEY (Tavily) in HERMES_HOME/.env or the environment.';

/**
 * The provider `web.search_provider` names, or with `auto` the first configured of
 * SearXNG, Brave and Tavily. Returns an error string when the choice is not usable.
 */
export function pickProvider(web: WebConfig, env: Readonly<Record<string, string | undefined>>): SearchProvider | { error: string } {
  const braveKey = env.BRAVE_API_KEY?.trim();
  const tavilyKey = env.TAVILY_API_KEY?.trim();
  switch (web.search_provider) {
    case 'searxng':
      return web.searxng_url ? searxng(web.searxng_url) : { error: 'web_search: web.search_provider is searxng but web.searxng_url is empty; set it in config.yaml' };
    case 'brave':
      return braveKey ? brave(web.brave_api_url, braveKey) : { error: 'web_search: web.search_provider is brave but BRAVE_API_KEY is not set; set it in HERMES_HOME/.env' };
    case 'tavily':
      return tavilyKey ? tavily(web.tavily_api_url, tavilyKey) : { error: 'web_search: web.search_provider is tavily but TAVILY_API_KEY is not set; set it in HERMES_HOME/.env' };
    case 'auto':
      if (web.searxng_url) return searxng(web.searxng_url);
      if (braveKey) return brave(web.brave_api_url, braveKey);
      if (tavilyKey) return tavily(web.tavily_api_url, tavilyKey);
      return { error: NO_PROVIDER_ERROR };
  }
}
