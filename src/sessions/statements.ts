import type { SqlDb, SqlStatement, SqlValue } from './sql/index.js';

/** Prepared statements by their text, prepared once each: preparing costs more than most of these queries. */
export class Statements {
  private readonly cache = new Map<string, SqlStatement>();

  constructor(readonly db: SqlDb) {}

  get<P extends SqlValue[] = SqlValue[], R = unknown>(text: string): SqlStatement<P, R> {
    let statement = this.cache.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.cache.set(text, statement);
    }
    return statement as unknown as SqlStatement<P, R>;
  }
}
