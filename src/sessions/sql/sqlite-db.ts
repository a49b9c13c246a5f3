import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunResult, SqlDb, SqlStatement, SqlValue, TransactionMode } from './types.js';

class SqliteStatement<P extends SqlValue[], R> implements SqlStatement<P, R> {
  constructor(private readonly statement: Database.Statement<unknown[], R>) {}

  run(...params: P): RunResult {
    return { changes: this.statement.run(...params).changes };
  }

  get(...params: P): R | undefined {
    return this.statement.get(...params);
  }

  all(...params: P): R[] {
    return this.statement.all(...params);
  }
}

/** Distinct statement texts kept prepared; SQL built with a varying number of placeholders stays bounded. */
const MAX_PREPARED = 500;

/**
 * state.db in SQLite (better-sqlite3): WAL, so the gateway and `hermes chat` share one file;
 * a busy timeout for another process's write lock; foreign keys on.
 */
export class SqliteDb implements SqlDb {
  readonly engine = 'sqlite' as const;
  readonly raw: Database.Database;

  constructor(
    readonly where: string,
    options: { busyTimeoutMs?: number } = {},
  ) {
    if (where !== ':memory:') mkdirSync(dirname(where), { recursive: true });
    this.raw = new Database(where, { timeout: options.busyTimeoutMs ?? 5000 });
    try {
      this.raw.pragma('journal_mode = WAL');
      this.raw.pragma('synchronous = NORMAL');
      this.raw.pragma('foreign_keys = ON');
    } catch (error) {
      this.raw.close();
      throw error;
    }
    this.inTransaction = this.raw.transaction((work: () => unknown) => work());
  }

  /** Statements by their text: callers prepare per call, and preparing costs more than most queries. */
  private readonly prepared = new Map<string, Database.Statement<unknown[], unknown>>();

  prepare<P extends SqlValue[] = SqlValue[], R = unknown>(text: string): SqlStatement<P, R> {
    let statement = this.prepared.get(text);
    if (!statement) {
      statement = this.raw.prepare<unknown[], unknown>(text);
      if (this.prepared.size >= MAX_PREPARED) this.prepared.delete(this.prepared.keys().next().value!);
      this.prepared.set(text, statement);
    }
    return new SqliteStatement<P, R>(statement as Database.Statement<unknown[], R>);
  }

  exec(text: string): void {
    this.raw.exec(text);
  }

  /** One wrapper for every transaction (better-sqlite3 builds five functions per wrapper); nested calls still take savepoints. */
  private readonly inTransaction: Database.Transaction<(work: () => unknown) => unknown>;

  transaction<T>(work: () => T, mode: TransactionMode = 'deferred'): T {
    const result = mode === 'immediate' ? this.inTransaction.immediate(work) : this.inTransaction(work);
    return result as T;
  }

  close(): void {
    if (this.raw.open) this.raw.close();
  }
}
