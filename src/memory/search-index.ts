import { z } from 'zod';
import { SUMMARY_MARKER } from '../shared/notices.js';
import { readJson } from '../shared/read-json.js';
import { redactSecrets } from '../shared/redact.js';
import type { SqlDb } from '../sessions/index.js';
import type { Person } from './person.js';
import { createHash } from 'node:crypto';
import { parseQuery, toFts5, toTsquery } from './search-query.js';

/** One message as session_search needs it: who said it and its text (images and tool calls left out). */
const storedMessage = z.object({
  role: z.string(),
  content: z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() })), z.null()]).optional(),
});

function messageText(raw: string): { role: string; text: string } | undefined {
  const parsed = readJson(storedMessage, raw);
  if (!parsed) return undefined;
  const { role, content } = parsed;
  const text = typeof content === 'string' ? content : (content ?? []).map((part) => part.text ?? '').filter(Boolean).join('\n');
  return { role, text: text.trim() };
}

/** One hit: the session, its thread, when, and the matching excerpt (>>>match<<<). */
export interface SearchHit {
  session_id: string;
  thread: string;
  source: string;
  when: string;
  role: string;
  kind: 'message' | 'summary';
  snippet: string;
}

interface HitRow {
  session_id: string;
  thread_key: string;
  account: string;
  created_at: number;
  role: string;
  kind: string;
  snippet: string;
}

/** Rows a search reads before grouping them by session. */
const CANDIDATES = 60;
const SNIPPET_WORDS = 24;

/**
 * The full-text index of each person's past messages (table search_docs: FTS5 on SQLite,
 * a tsvector on PostgreSQL). A turn's messages are indexed under the person whose turn it
 * was; a compaction summary only where one person wrote the whole session. Every query is
 * filtered by the asking person in SQL.
 */
export class SearchIndex {
  constructor(private readonly db: SqlDb) {}

  /** The last message's seq of a session (a turn indexes what comes after it). */
  lastSeq(sessionId: string): number {
    const row = this.db.prepare<[string], { seq: number | null }>('SELECT MAX(seq) AS seq FROM messages WHERE session_id = ?').get(sessionId);
    return Number(row?.seq ?? 0);
  }

  /** Indexes a turn's messages (after `fromSeq`) under `person`, then the session's summaries when it is theirs alone. */
  indexTurn(turn: { sessionId: string; threadKey: string; person: Person; fromSeq: number }): number {
    const { sessionId, threadKey, person } = turn;
    return this.db.transaction(() => {
      const rows = this.db
        .prepare<[string, number], { seq: number; created_at: number; message: string }>('SELECT seq, created_at, message FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq')
        .all(sessionId, turn.fromSeq);
      let added = 0;
      for (const row of rows) {
        const message = messageText(row.message);
        if (!message || !message.text || (message.role !== 'user' && message.role !== 'assistant')) continue;
        added += this.insert(person, sessionId, threadKey, 'message', message.role, Number(row.seq), Number(row.created_at), message.text);
      }
      added += this.indexSummaries(sessionId, threadKey);
      return added;
    });
  }

  private indexSummaries(sessionId: string, threadKey: string): number {
    const speakers = this.db
      .prepare<[string], { account: string; person: string }>("SELECT DISTINCT account, person FROM search_docs WHERE session_id = ? AND kind = 'message'")
      .all(sessionId);
    // A summary of a thread several people wrote in holds each one's words: nobody's alone to search.
    if (speakers.length !== 1) return 0;
    const owner: Person = { account: speakers[0].account, id: speakers[0].person };
    const rows = this.db
      .prepare<[string, string], { seq: number; message: string }>('SELECT seq, message FROM context WHERE session_id = ? AND message LIKE ?')
      .all(sessionId, `%${SUMMARY_MARKER}%`);
    let added = 0;
    for (const row of rows) {
      const message = messageText(row.message);
      if (!message || !message.text.startsWith(SUMMARY_MARKER)) continue;
      added += this.insert(owner, sessionId, threadKey, 'summary', 'summary', Number(row.seq), Date.now(), message.text);
    }
    return added;
  }

  private insert(person: Person, sessionId: string, threadKey: string, kind: string, role: string, sourceSeq: number, createdAt: number, text: string): number {
    return this.db
      .prepare(
        'INSERT INTO search_docs (account, person, session_id, thread_key, kind, role, source_seq, created_at, text, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT (session_id, kind, source_seq, account, person) DO NOTHING',
      )
      .run(person.account, person.id, sessionId, threadKey, kind, role, sourceSeq, createdAt, redactSecrets(text), ownerToken(person)).changes;
  }

  /**
   * The best matches of `query` among `person`'s messages, at most `limit` sessions (the best
   * hit of each), leaving out `excludeSession` (the one the model already sees).
   */
  search(person: Person, query: string, options: { limit: number; excludeSession?: string; roles?: readonly string[] }): SearchHit[] {
    const terms = parseQuery(query);
    if (terms.length === 0) return [];
    // SQLite: the owner token keeps the match itself to the person's rows; the join checks them again.
    const rows = this.db.engine === 'sqlite' ? this.searchSqlite(person, `owner : "${ownerToken(person)}" AND text : (${toFts5(terms)})`) : this.searchPostgres(person, toTsquery(terms));
    const seen = new Set<string>();
    const hits: SearchHit[] = [];
    for (const row of rows) {
      if (row.session_id === options.excludeSession || seen.has(row.session_id)) continue;
      if (options.roles && options.roles.length > 0 && !options.roles.includes(row.role)) continue;
      seen.add(row.session_id);
      hits.push(hit(row));
      if (hits.length >= options.limit) break;
    }
    return hits;
  }

  private searchSqlite(person: Person, match: string): HitRow[] {
    return this.db
      .prepare<[string, string, string, number], HitRow>(
        `SELECT d.session_id, d.thread_key, d.account, d.created_at, d.role, d.kind,
                snippet(search_docs_fts, 0, '>>>', '<<<', '…', ${SNIPPET_WORDS}) AS snippet
           FROM search_docs_fts JOIN search_docs d ON d.seq = search_docs_fts.rowid
          WHERE search_docs_fts MATCH ? AND d.account = ? AND d.person = ?
          ORDER BY search_docs_fts.rank, d.seq DESC LIMIT ?`,
      )
      .all(match, person.account, person.id, CANDIDATES);
  }

  private searchPostgres(person: Person, tsquery: string): HitRow[] {
    return this.db
      .prepare<[string, string, string, string, number, string], HitRow>(
        // The query is written out in the WHERE (not joined from a CTE) so the planner uses the GIN index.
        `WITH found AS (
                SELECT d.session_id, d.thread_key, d.account, d.created_at, d.role, d.kind, d.text, d.seq, ts_rank(d.tsv, to_tsquery('simple', ?)) AS score
                  FROM search_docs d
                 WHERE d.account = ? AND d.person = ? AND d.tsv @@ to_tsquery('simple', ?)
                 ORDER BY score DESC, d.seq DESC LIMIT ?)
         SELECT session_id, thread_key, account, created_at, role, kind,
                ts_headline('simple', text, to_tsquery('simple', ?), 'StartSel=>>>, StopSel=<<<, MaxWords=${SNIPPET_WORDS}, MinWords=8, MaxFragments=1, FragmentDelimiter=…') AS snippet
           FROM found ORDER BY score DESC, seq DESC`,
      )
      .all(tsquery, person.account, person.id, tsquery, CANDIDATES, tsquery);
  }

  /** The person's latest sessions (no query): each with its first message as a preview. */
  recent(person: Person, options: { limit: number; excludeSession?: string }): SearchHit[] {
    const rows = this.db
      .prepare<[string, string, string, number], HitRow>(
        `SELECT d.session_id, d.thread_key, d.account, d.created_at, d.role, d.kind, d.text AS snippet
           FROM search_docs d
          WHERE d.seq IN (SELECT MIN(seq) FROM search_docs WHERE account = ? AND person = ? AND kind = 'message' AND session_id <> ? GROUP BY session_id)
          ORDER BY d.created_at DESC LIMIT ?`,
      )
      .all(person.account, person.id, options.excludeSession ?? '', options.limit);
    return rows.map((row) => hit({ ...row, snippet: row.snippet.length > 200 ? `${row.snippet.slice(0, 199)}…` : row.snippet }));
  }

  /** How many documents the index holds for a person (tests, the bench). */
  count(person: Person): number {
    const row = this.db.prepare<[string, string], { n: number }>('SELECT COUNT(*) AS n FROM search_docs WHERE account = ? AND person = ?').get(person.account, person.id);
    return Number(row?.n ?? 0);
  }
}

/** One word naming (account, person) for the full-text index: `o` and 32 hex digits. */
export function ownerToken(person: Person): string {
  return `o${createHash('sha256').update(person.account).update('\0').update(person.id).digest('hex').slice(0, 32)}`;
}

function hit(row: HitRow): SearchHit {
  return {
    session_id: row.session_id,
    thread: row.thread_key,
    source: row.account,
    when: new Date(Number(row.created_at)).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    role: row.role,
    kind: row.kind === 'summary' ? 'summary' : 'message',
    // Indexed text is redacted already; this catches what an older row or a cut snippet holds.
    snippet: redactSecrets(row.snippet),
  };
}
