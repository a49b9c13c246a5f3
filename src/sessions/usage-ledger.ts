import type { Statements } from './statements.js';
import type { ModelUsage, UsageRecord, UsageSummary } from './types.js';

interface UsageRow {
  created_at: number;
  kind: string;
  model: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  estimated: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

function record(row: UsageRow): UsageRecord {
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
    const last = this.sql
      .get<[string], UsageRow>("SELECT * FROM usage WHERE session_id = ? AND kind = 'turn' ORDER BY seq DESC LIMIT 1")
      .get(sessionId);
    const byModel = this.sql
      .get<[string], { model: string; calls: number; prompt: number; completion: number; estimated: number; cache_read: number; cache_write: number }>(
        'SELECT model, SUM(calls) AS calls, SUM(prompt_tokens) AS prompt, SUM(completion_tokens) AS completion, MAX(estimated) AS estimated, ' +
          'SUM(cache_read_tokens) AS cache_read, SUM(cache_write_tokens) AS cache_write FROM usage WHERE session_id = ? GROUP BY model ORDER BY MIN(seq)',
      )
      .all(sessionId)
      .map((row): ModelUsage => ({
        model: row.model,
        calls: row.calls,
        promptTokens: row.prompt,
        completionTokens: row.completion,
        estimated: row.estimated !== 0,
        cacheReadTokens: Number(row.cache_read),
        cacheWriteTokens: Number(row.cache_write),
      }));
    const summaries =
      this.sql.get<[string], { n: number }>("SELECT COUNT(*) AS n FROM usage WHERE session_id = ? AND kind = 'summary'").get(sessionId)?.n ?? 0;
    return { ...(last ? { lastTurn: record(last) } : {}), byModel, summaries };
  }
}
