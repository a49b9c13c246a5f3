import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Logger } from '../shared/logger.js';
import { HermesError, errorMessage } from '../shared/errors.js';
import { openStateDb } from './state-db.js';
import type { StateLocation } from './state-location.js';
import type { SqlDb, SqlStatement, SqlValue } from './sql/index.js';
import { readableMessageRows } from './validate.js';
import { Statements } from './statements.js';
import { ContextRows } from './context-rows.js';
import { UsageLedger } from './usage-ledger.js';
import { ThreadSettingsTable } from './thread-settings.js';
import type { ChatMessage, ContextEntry, ContextRow, SessionRecord } from './types.js';

/** The state database could not be opened or migrated. */
export class SessionStoreError extends HermesError {
  override readonly name = 'SessionStoreError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('SESSION_STORE', message, options);
  }
}

export interface SessionStoreOptions {
  logger: Logger;
  /** Milliseconds a writer waits for another process's (or instance's) lock (default 5000). */
  busyTimeoutMs?: number;
}

/* Rows as the database gives them back, read with zod (never cast into a type). */
const sessionRow = z.object({
  id: z.string(),
  key: z.string(),
  created_at: z.number(),
  updated_at: z.number(),
  interrupted_reason: z.string().nullable(),
  passthrough: z.string(),
});
type SessionRow = z.infer<typeof sessionRow>;
const messageRow = z.object({ seq: z.number(), message: z.string() });
/** COUNT(*): a number on SQLite, a bigint's text on some PostgreSQL paths. */
const countRow = z.object({ n: z.coerce.number() });

/** A readable, sortable, unique id: `s-<base36 time>-<hex>`. Never contains `::`. */
function newSessionId(): string {
  return `s-${Date.now().toString(36)}-${randomBytes(5).toString('hex')}`;
}

/**
 * Sessions and their messages in SQLite (HERMES_HOME/state.db; WAL mode and a busy timeout
 * let the gateway and `hermes chat` share one file) or in PostgreSQL (`sessions.store:
 * postgres`, which instances on several hosts share). Every message is written as soon as
 * it exists, so an interrupted or crashed turn keeps what it did.
 */
export class SessionStore {
  private readonly db: SqlDb;
  private readonly logger: Logger;
  private readonly statements: Statements;
  private readonly contextRows: ContextRows;
  /** Tokens spent per turn and per summary call. */
  readonly usage: UsageLedger;
  /** Settings a thread keeps across sessions (/model, /verbose). */
  readonly threadSettings: ThreadSettingsTable;
  private readonly appendInTransaction: (sessionId: string, message: ChatMessage, view: ContextEntry | null) => { seq: number; rev: number };

  private constructor(db: SqlDb, logger: Logger) {
    this.db = db;
    this.logger = logger;
    this.statements = new Statements(db);
    this.contextRows = new ContextRows(this.statements, logger);
    this.usage = new UsageLedger(this.statements);
    this.threadSettings = new ThreadSettingsTable(this.statements, logger);
    this.appendInTransaction = (sessionId: string, message: ChatMessage, view: ContextEntry | null) => db.transaction(() => {
      const now = Date.now();
      this.sql('INSERT INTO messages (session_id, created_at, message) VALUES (?, ?, ?)').run(sessionId, now, JSON.stringify(message));
      this.sql('UPDATE sessions SET updated_at = ? WHERE id = ?').run(now, sessionId);
      if (!view) return { seq: 0, rev: this.contextRows.rev(sessionId) };
      const seq = this.contextRows.insert(sessionId, view);
      return { seq, rev: this.contextRows.bump(sessionId) };
    });
  }

  private sql<P extends SqlValue[] = SqlValue[], R = unknown>(text: string): SqlStatement<P, R> {
    return this.statements.get<P, R>(text);
  }

  /** The database itself, for the stores kept beside the sessions (src/memory: notes, the search index). */
  get database(): SqlDb {
    return this.db;
  }

  /** Opens (creating when missing) and migrates the database at `location`: a SQLite file or a PostgreSQL database. */
  static open(location: StateLocation, options: SessionStoreOptions): SessionStore {
    const db = openStateDb(location, options);
    try {
      return new SessionStore(db, options.logger);
    } catch (error) {
      db.close();
      throw new SessionStoreError(`cannot open the session database ${db.where}: ${errorMessage(error)}`, { cause: error });
    }
  }

  private record(row: SessionRow): SessionRecord {
    let passthrough: string[] = [];
    try {
      const parsed: unknown = JSON.parse(row.passthrough);
      if (Array.isArray(parsed)) passthrough = parsed.filter((name): name is string => typeof name === 'string');
    } catch {
      this.logger.warn({ session: row.id }, 'state.db: unreadable passthrough list ignored');
    }
    return {
      id: row.id,
      key: row.key,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      interruptedReason: row.interrupted_reason,
      passthrough,
    };
  }

  /** The current session of a thread key, if it has one. */
  current(key: string): SessionRecord | undefined {
    const row = this.sql<[string]>('SELECT * FROM sessions WHERE key = ? ORDER BY seq DESC LIMIT 1').get(key);
    return row === undefined ? undefined : this.record(sessionRow.parse(row));
  }

  /** A session by id (old sessions stay readable after `/new`). */
  get(id: string): SessionRecord | undefined {
    const row = this.sql<[string]>('SELECT * FROM sessions WHERE id = ?').get(id);
    return row === undefined ? undefined : this.record(sessionRow.parse(row));
  }

  /** Every session a key has had, oldest first. */
  history(key: string): SessionRecord[] {
    const rows = this.sql<[string]>('SELECT * FROM sessions WHERE key = ? ORDER BY seq').all(key);
    return rows.map((row) => this.record(sessionRow.parse(row)));
  }

  /** The current session of `key`, created when there is none (atomic across processes). */
  currentOrCreate(key: string): SessionRecord {
    return this.db.transaction(() => this.current(key) ?? this.insert(key), 'immediate');
  }

  /** Starts a new session for `key`; the old one keeps its messages. */
  create(key: string): SessionRecord {
    return this.db.transaction(() => this.insert(key), 'immediate');
  }

  private insert(key: string): SessionRecord {
    const now = Date.now();
    const id = newSessionId();
    this.sql('INSERT INTO sessions (id, key, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, key, now, now);
    return { id, key, createdAt: now, updatedAt: now, interruptedReason: null, passthrough: [] };
  }

  /** Appends one message to the history and to the model's view; it is on disk when this returns. */
  append(sessionId: string, message: ChatMessage): void {
    this.appendInTransaction(sessionId, message, { message, tokens: -1 });
  }

  /**
   * Appends `message` to the whole history and `view` (a shortened copy, or the same) to the
   * model's view, at once. Returns the view row's seq and the view's new revision.
   */
  appendWithView(sessionId: string, message: ChatMessage, view: ContextEntry | null): { seq: number; rev: number } {
    return this.appendInTransaction(sessionId, message, view);
  }

  /** The model's view of the session, in order (what compaction left, then every message since). */
  context(sessionId: string): ContextRow[] {
    return this.contextRows.rows(sessionId);
  }

  /** The view's revision: it changes with every change of the view, by any process. */
  contextRev(sessionId: string): number {
    return this.contextRows.rev(sessionId);
  }

  /** Replaces the model's view (a compaction); the history keeps everything. Returns the new seqs and revision. */
  replaceContext(sessionId: string, entries: readonly ContextEntry[]): { seqs: number[]; rev: number } {
    return this.db.transaction(() => {
      const seqs = this.contextRows.replace(sessionId, entries);
      return { seqs, rev: this.contextRows.bump(sessionId) };
    }, 'immediate');
  }

  /** Rewrites rows of the view in place (pruned outputs, counted sizes); returns the new revision. */
  updateContext(sessionId: string, rows: readonly ContextRow[]): number {
    return this.db.transaction(() => {
      this.contextRows.update(sessionId, rows);
      return this.contextRows.bump(sessionId);
    }, 'immediate');
  }

  /** Drops the view's rows from `seq` on (/undo, /retry); the history keeps them. Returns the new revision. */
  truncateContext(sessionId: string, seq: number): number {
    return this.db.transaction(() => {
      this.contextRows.truncateFrom(sessionId, seq);
      return this.contextRows.bump(sessionId);
    }, 'immediate');
  }

  /** The session's messages in order. A row that cannot be read is skipped with a log line. */
  messages(sessionId: string): ChatMessage[] {
    const rows = this.sql<[string]>('SELECT seq, message FROM messages WHERE session_id = ? ORDER BY seq').all(sessionId).map((row) => messageRow.parse(row));
    return readableMessageRows(rows, { logger: this.logger, sessionId, table: 'message' }).map(({ message }) => message);
  }

  messageCount(sessionId: string): number {
    const row = this.sql<[string]>('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?').get(sessionId);
    return row === undefined ? 0 : countRow.parse(row).n;
  }

  /** Marks (or clears, with null) that the session's last turn was interrupted. */
  setInterrupted(sessionId: string, reason: string | null): void {
    this.sql('UPDATE sessions SET interrupted_reason = ? WHERE id = ?').run(reason, sessionId);
  }

  /** Adds names to the session's passthrough list; returns the whole list. */
  addPassthrough(sessionId: string, names: readonly string[]): string[] {
    return this.db.transaction(() => {
      const current = this.get(sessionId)?.passthrough ?? [];
      const merged = [...new Set([...current, ...names])];
      this.sql('UPDATE sessions SET passthrough = ? WHERE id = ?').run(JSON.stringify(merged), sessionId);
      return merged;
    }, 'immediate');
  }

  close(): void {
    this.db.close();
  }
}
