import { z } from 'zod';
import type { Statements } from './statements.js';
import type { ModelUsage, UsageRecord, UsageSummary } from './types.js';

/* Rows as the database gives them back, read with zod. Sums come back as text from some
   PostgreSQL aggregates (numeric), so they are coerced. */
const usageRow = z.object({
  created_at: z.number(),
  kind: z.string(),
  model: z.string(),
  calls: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  estimated: z.number(),
  cache_read_tokens: z.number(),
  cache_write_tokens: z.number(),
});
const modelTotalsRow = z.object({
  model: z.string(),
  calls: z.coerce.number(),
  prompt: z.coerce.number(),
  completion: z.coerce.number(),
  estimated: z.coerce.number(),
  cache_read: z.coerce.number(),
  cache_write: z.coerce.number(),
});
const countRow = z.object({ n: z.coerce.number() });

function record(row: z.infer<typeof usageRow>): UsageRecord {
  return {
    kind: row.kind === 'summary' ? 'summary' : 'turn',
    model: row.model,
    calls: row.calls,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    estimated: row.estimated !== 0,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    createdAt: row.created_at,
  };
}

/** Tokens each turn and each summary call spent (the `usage` table), for /usage. */
export class UsageLedger {
  constructor(private readonly sql: Statements) {}

  add(sessionId: string, usage: Omit<UsageRecord, 'createdAt'>): void {
    this.sql
      .get(
        'INSERT INTO usage (session_id, created_at, kind, model, calls, prompt_tokens, completion_tokens, estimated, cache_read_tokens, cache_write_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(sessionId, Date.now(), usage.kind, usage.model, usage.calls, usage.promptTokens, usage.completionTokens, usage.estimated ? 1 : 0, usage.cacheReadTokens ?? 0, usage.cacheWriteTokens ?? 0);
  }

  summary(sessionId: string): UsageSummary {
    const last = this.sql.get<[string]>("SELECT * FROM usage WHERE session_id = ? AND kind = 'turn' ORDER BY seq DESC LIMIT 1").get(sessionId);
    const byModel = this.sql
      .get<[string]>(
        'SELECT model, SUM(calls) AS calls, SUM(prompt_tokens) AS prompt, SUM(completion_tokens) AS completion, MAX(estimated) AS estimated, ' +
          'SUM(cache_read_tokens) AS cache_read, SUM(cache_write_tokens) AS cache_write FROM usage WHERE session_id = ? GROUP BY model ORDER BY MIN(seq)',
      )
      .all(sessionId)
      .map((found): ModelUsage => {
        const row = modelTotalsRow.parse(found);
        return {
          model: row.model,
          calls: row.calls,
          promptTokens: row.prompt,
          completionTokens: row.completion,
          estimated: row.estimated !== 0,
          cacheReadTokens: row.cache_read,
          cacheWriteTokens: row.cache_write,
        };
      });
    const counted = this.sql.get<[string]>("SELECT COUNT(*) AS n FROM usage WHERE session_id = ? AND kind = 'summary'").get(sessionId);
    const summaries = counted === undefined ? 0 : countRow.parse(counted).n;
    return { ...(last === undefined ? {} : { lastTurn: record(usageRow.parse(last)) }), byModel, summaries };
  }
}
