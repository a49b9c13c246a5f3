import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../types.js';
import { abortReason } from '../../shared/notices.js';
import { errorMessage } from '../../shared/errors.js';
import { pickProvider } from './web/search-providers.js';

const args = z.strictObject({
  query: z.string().min(1).describe('What to search the web for'),
  limit: z.number().int().min(1).default(5).describe('How many results (providers give at most 20)'),
});

/** `web_search(query, limit=5)` → `{"success": true, "data": {"web": [{title, url, description}]}}`. */
export function webSearchTool(): Tool {
  return defineTool({
    name: 'web_search',
    description:
      'Search the web. Returns {"success": true, "data": {"web": [{"title", "url", "description"}]}}; ' +
      'read a page with web_extract.',
    args,
    async run({ query, limit }, ctx) {
      const provider = pickProvider(ctx.config.web, ctx.env ?? {});
      if ('error' in provider) return provider;
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.config.web.timeout * 1000)]);
      try {
        const web = await provider.search(query, limit, signal);
        return { success: true, data: { web } };
      } catch (error) {
        if (ctx.signal.aborted) return { error: `web_search: interrupted${abortReason(ctx.signal) ? ` (${abortReason(ctx.signal)})` : ''}` };
        if (signal.aborted) return { error: `web_search: ${provider.name} did not answer within ${ctx.config.web.timeout}s (web.timeout)` };
        const cause = error instanceof Error && error.cause ? ` (${errorMessage(error.cause)})` : '';
        return { error: `web_search: ${provider.name} failed: ${errorMessage(error)}${cause}` };
      }
    },
  });
}
