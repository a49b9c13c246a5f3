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
  }

  prepare<P extends SqlValue[] = SqlValue[], R = unknown>(text: string): SqlStatement<P, R> {
    return new SqliteStatement<P, R>(this.raw.prepare<unknown[], R>(text));
  }

  exec(text: string): void {
    this.raw.exec(text);
  }

  transaction<T>(work: () => T, mode: TransactionMode = 'deferred'): T {
    const run = this.raw.transaction(work);
    return mode === 'immediate' ? run.immediate() : run();
  }

  close(): void {
    if (this.raw.open) this.raw.close();
  }
}
