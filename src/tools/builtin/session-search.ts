import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { rootSession, type MemoryService } from '../../memory/index.js';

const searchArgs = z
  .object({
    query: z.string().optional().describe('Keywords; "quoted phrase", OR, NOT or -word, prefix*. Leave out to list your recent sessions'),
    limit: z.number().int().min(1).max(10).default(3).describe('Sessions to return (1-10, default 3)'),
    role_filter: z.string().optional().describe('Comma-separated roles to match: user, assistant, summary'),
  })
  .strict();

/**
 * `session_search`: full-text search over the asking person's past sessions (FTS5 on SQLite,
 * tsvector on PostgreSQL), the thread, the date and a snippet of each. The person is the
 * turn's; the SQL filters by them, so nobody else's messages can come back.
 */
export function sessionSearchTool(memory: MemoryService) {
  return defineTool({
    name: 'session_search',
    description:
      'Search the past conversations of the person you are talking to (every earlier session and thread of theirs, and ' +
      'summaries of compacted ones), or list their recent sessions when no query is given. Use it when they say "last ' +
      'time", "as I mentioned", "we did this before", or refer to something not in this conversation. Returns, per session, ' +
      'the thread, the date and a snippet with the match between >>> and <<<. Terms are ANDed; use OR, NOT, "phrases" and prefix*.',
    args: searchArgs,
    async run(args, ctx) {
      const person = memory.speakers.of(ctx.sessionId);
      if (!person) return { error: 'session_search needs a person: this call is not part of a chat turn with a known sender.' };
      const excludeSession = rootSession(ctx.sessionId);
      const query = args.query?.trim() ?? '';
      if (!query) {
        const results = memory.index.recent(person, { limit: args.limit, excludeSession });
        return { success: true, mode: 'recent', results, count: results.length };
      }
      const roles = args.role_filter?.split(',').map((role) => role.trim()).filter(Boolean);
      const results = memory.index.search(person, query, { limit: args.limit, excludeSession, ...(roles ? { roles } : {}) });
      return { success: true, query, results, count: results.length, ...(results.length === 0 ? { note: 'No earlier session of this person matches.' } : {}) };
    },
  });
}
