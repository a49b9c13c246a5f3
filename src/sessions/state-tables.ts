import type { StateDb } from './state-db.js';
import { Statements } from './statements.js';
import type { SqlStatement } from './sql/index.js';

/**
 * Some tables of the state database through a connection of their own (the outbox, the cron
 * jobs): statements prepared once and kept, the connection closed with the tables.
 */
export abstract class StateTables {
  private readonly statements: Statements;

  protected constructor(protected readonly db: StateDb) {
    this.statements = new Statements(db);
  }

  close(): void {
    this.db.close();
  }

  protected sql(text: string): SqlStatement {
    return this.statements.get(text);
  }
}
