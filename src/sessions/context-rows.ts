import { z } from 'zod';
import type { Logger } from '../shared/logger.js';
import type { Statements } from './statements.js';
import { readableMessageRows } from './validate.js';
import type { ContextEntry, ContextRow } from './types.js';

const contextRow = z.object({ seq: z.number(), message: z.string(), tokens: z.number() });
const revRow = z.object({ context_rev: z.number() });
const seqRow = z.object({ seq: z.number() });

/**
 * The model's view of each session (the `context` table): what the next request sends.
 * Compaction rewrites it; the `messages` table keeps the whole history. Every change bumps
 * the session's `context_rev`, so a cached copy knows when another process changed it.
 */
export class ContextRows {
  constructor(
    private readonly sql: Statements,
    private readonly logger: Logger,
  ) {}

  /** The view in order; a row that cannot be read is skipped with a log line. */
  rows(sessionId: string): ContextRow[] {
    const rows = this.sql
      .get<[string]>('SELECT seq, message, tokens FROM context WHERE session_id = ? ORDER BY seq')
      .all(sessionId)
      .map((row) => contextRow.parse(row));
    return readableMessageRows(rows, { logger: this.logger, sessionId, table: 'context' }).map(({ row, message }) => ({ seq: row.seq, message, tokens: row.tokens }));
  }

  /** How many times the session's view has changed. */
  rev(sessionId: string): number {
    return revOf(this.sql.get<[string]>('SELECT context_rev FROM sessions WHERE id = ?').get(sessionId));
  }

  /** Adds one message to the end of the view (inside the caller's transaction); returns its seq. */
  insert(sessionId: string, entry: ContextEntry): number {
    const row = this.sql.get<[string, string, number]>('INSERT INTO context (session_id, message, tokens) VALUES (?, ?, ?) RETURNING seq').get(sessionId, JSON.stringify(entry.message), entry.tokens);
    return seqRow.parse(row).seq;
  }

  /** Replaces the whole view (a compaction); returns the new rows' seqs. */
  replace(sessionId: string, entries: readonly ContextEntry[]): number[] {
    this.sql.get('DELETE FROM context WHERE session_id = ?').run(sessionId);
    return entries.map((entry) => this.insert(sessionId, entry));
  }

  /** Changes rows in place (pruned outputs, counted sizes). */
  update(sessionId: string, rows: readonly ContextRow[]): void {
    const statement = this.sql.get('UPDATE context SET message = ?, tokens = ? WHERE seq = ? AND session_id = ?');
    for (const row of rows) statement.run(JSON.stringify(row.message), row.tokens, row.seq, sessionId);
  }

  /** Drops the rows from `seq` on (/undo, /retry). */
  truncateFrom(sessionId: string, seq: number): number {
    return this.sql.get('DELETE FROM context WHERE session_id = ? AND seq >= ?').run(sessionId, seq).changes;
  }

  /** Records a change of the view; returns the new revision. */
  bump(sessionId: string): number {
    // One statement (RETURNING) rather than an update and a read: a round trip each on PostgreSQL.
    return revOf(this.sql.get<[string]>('UPDATE sessions SET context_rev = context_rev + 1 WHERE id = ? RETURNING context_rev').get(sessionId));
  }
}

/** A session's revision; 0 for a session not there. */
function revOf(row: unknown): number {
  return row === undefined ? 0 : revRow.parse(row).context_rev;
}
