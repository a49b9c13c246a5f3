import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSyncFn } from 'synckit';
import { packageRoot } from '../../shared/package-root.js';
import { numberPlaceholders } from './placeholders.js';
import { describePostgresUrl, redactPassword } from './postgres-url.js';
import type { RunResult, SqlDb, SqlStatement, SqlValue, TransactionMode } from './types.js';
import type { WorkerAnswer, WorkerRequest } from './worker-protocol.js';

/** A PostgreSQL statement failed, or the server could not be reached. The message holds no password. */
export class PostgresError extends Error {
  override readonly name = 'PostgresError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * One advisory lock key for `immediate` transactions: a writer that reads then writes (the
 * current session or a new one, a job under its limits) holds it, as SQLite's BEGIN IMMEDIATE
 * holds the file's write lock, so two instances cannot both decide on the same stale read.
 */
export const WRITE_LOCK_KEY = 0x4865726d6573; // "Hermes"

type Call = (request: WorkerRequest) => WorkerAnswer;
let call: Call | undefined;

/** The compiled worker: beside this file in dist/, else dist/ of the package (running from the TypeScript sources). */
function workerPath(): string {
  const beside = fileURLToPath(new URL('./postgres-worker.js', import.meta.url));
  if (existsSync(beside)) return beside;
  const built = join(packageRoot(), 'dist/src/sessions/sql/postgres-worker.js');
  if (existsSync(built)) return built;
  throw new PostgresError(`the PostgreSQL worker ${built} is missing: build hermes-gateway first (npm run build)`);
}

/*
 * The stores' API is synchronous (better-sqlite3 blocks on the disk), so this driver blocks
 * too: pg runs in a worker thread (one for the process, one connection per PostgresDb) and the
 * caller waits for each answer (synckit: Atomics.wait on a shared buffer). The cost is one
 * loopback round trip per statement, during which this thread does nothing else, exactly as
 * it waits for SQLite's disk.
 */
function worker(): Call {
  return (call ??= createSyncFn<(request: WorkerRequest) => Promise<WorkerAnswer>>(workerPath()));
}

class PostgresStatement<P extends SqlValue[], R> implements SqlStatement<P, R> {
  constructor(
    private readonly db: PostgresDb,
    private readonly text: string,
    private readonly name: string,
  ) {}

  run(...params: P): RunResult {
    return { changes: this.db.send(this.text, params, this.name).rowCount };
  }

  get(...params: P): R | undefined {
    return this.db.send(this.text, params, this.name).rows[0] as R | undefined;
  }

  all(...params: P): R[] {
    return this.db.send(this.text, params, this.name).rows as R[];
  }
}

let nextStatement = 0;

/** A PostgreSQL database through one connection, synchronous like better-sqlite3 (see above). */
export class PostgresDb implements SqlDb {
  readonly engine = 'postgres' as const;
  readonly where: string;
  private readonly conn: number;
  private depth = 0;
  private closed = false;

  /** Connects (a clear PostgresError when it cannot: the address without its password, and why). */
  constructor(
    private readonly url: string,
    options: { lockTimeoutMs?: number } = {},
  ) {
    this.where = describePostgresUrl(url);
    const answer = worker()({ op: 'open', url, lockTimeoutMs: options.lockTimeoutMs ?? 5000 });
    if (!answer.ok) throw new PostgresError(`cannot connect to PostgreSQL at ${this.where}: ${redactPassword(answer.message, url)}`, answer.code);
    this.conn = answer.conn;
  }

  /** Runs one statement with `?` placeholders once (prepare() for one run many times). */
  query(text: string, values: SqlValue[]): { rows: Record<string, unknown>[]; rowCount: number } {
    return this.send(numberPlaceholders(text).text, values);
  }

  /** Runs a statement already in `$n` form; `name` prepares it once on this connection. */
  send(text: string, values: SqlValue[], name?: string): { rows: Record<string, unknown>[]; rowCount: number } {
    return this.ask({ op: 'query', conn: this.conn, text, values, ...(name ? { name } : {}), reconnect: this.depth === 0 }, text);
  }

  prepare<P extends SqlValue[] = SqlValue[], R = unknown>(text: string): SqlStatement<P, R> {
    return new PostgresStatement<P, R>(this, numberPlaceholders(text).text, `hermes_${++nextStatement}`);
  }

  exec(text: string): void {
    this.ask({ op: 'exec', conn: this.conn, text, reconnect: this.depth === 0 }, text);
  }

  transaction<T>(work: () => T, mode: TransactionMode = 'deferred'): T {
    const savepoint = this.depth > 0 ? `hermes_sp_${this.depth}` : undefined;
    if (savepoint) this.exec(`SAVEPOINT ${savepoint}`);
    else {
      this.exec('BEGIN');
      if (mode === 'immediate') {
        try {
          this.query('SELECT pg_advisory_xact_lock(?)', [WRITE_LOCK_KEY]);
        } catch (error) {
          this.exec('ROLLBACK');
          throw error;
        }
      }
    }
    this.depth++;
    let result: T;
    try {
      result = work();
      if (result instanceof Promise) throw new PostgresError('a transaction\'s work must be synchronous: it returned a Promise');
    } catch (error) {
      this.depth--;
      this.rollback(savepoint);
      throw error;
    }
    this.depth--;
    this.exec(savepoint ? `RELEASE SAVEPOINT ${savepoint}` : 'COMMIT');
    return result;
  }

  private rollback(savepoint: string | undefined): void {
    try {
      this.exec(savepoint ? `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` : 'ROLLBACK');
    } catch {
      // The connection is gone: the server has rolled the transaction back already.
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    worker()({ op: 'close', conn: this.conn });
  }

  private ask(request: WorkerRequest, text: string): { rows: Record<string, unknown>[]; rowCount: number } {
    if (this.closed) throw new PostgresError(`the PostgreSQL connection to ${this.where} is closed`);
    const answer = worker()(request);
    if (!answer.ok) {
      const statement = text.length > 120 ? `${text.slice(0, 120)}…` : text;
      throw new PostgresError(`PostgreSQL at ${this.where}: ${redactPassword(answer.message, this.url)} (in: ${statement.replace(/\s+/g, ' ')})`, answer.code);
    }
    return answer;
  }
}
