import type Database from 'better-sqlite3';

/** Prepared statements by their text, prepared once each: preparing costs more than most of these queries. */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  get<P extends unknown[] = unknown[], R = unknown>(text: string): Database.Statement<P, R> {
    let statement = this.cache.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.cache.set(text, statement);
    }
    return statement as unknown as Database.Statement<P, R>;
  }
}
