/** A value a statement's `?` takes: what both engines store as is. */
export type SqlValue = string | number | bigint | null;

/** What a statement that writes reports. Rows it made are read with `RETURNING` (both engines have it), never a rowid. */
export interface RunResult {
  changes: number;
}

/** A statement prepared once by its text (with `?` placeholders) and run many times. */
export interface SqlStatement<P extends SqlValue[] = SqlValue[], R = unknown> {
  run(...params: P): RunResult;
  /** The first row, or undefined. */
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

/** `immediate` takes the write lock at the start (SQLite's BEGIN IMMEDIATE; on PostgreSQL one advisory lock). */
export type TransactionMode = 'deferred' | 'immediate';

/**
 * What the stores need from a database, synchronous like better-sqlite3: the stores' API is
 * synchronous and used so all over the agent and gateway.
 */
export interface SqlDb {
  readonly engine: 'sqlite' | 'postgres';
  /** Where it is, for messages: a file, or `postgres://host:port/db` (never a password). */
  readonly where: string;
  prepare<P extends SqlValue[] = SqlValue[], R = unknown>(text: string): SqlStatement<P, R>;
  /** Runs statements that take no parameters (a migration). */
  exec(text: string): void;
  /**
   * Runs `work` in one transaction: committed when it returns, rolled back when it throws.
   * Nested calls are savepoints. `work` must be synchronous.
   */
  transaction<T>(work: () => T, mode?: TransactionMode): T;
  /** Idempotent. */
  close(): void;
}
