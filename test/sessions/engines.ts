import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { MIGRATIONS, POSTGRES_MIGRATIONS, type SqlDb, type StateLocation } from '../../src/sessions/index.js';
import { PostgresDb, SqliteDb } from '../../src/sessions/sql/index.js';
import { postgresSkipReason, postgresPerGroup, type TestPostgres } from '../helpers/postgres.js';

export type EngineName = 'sqlite' | 'postgres';

/**
 * The engines a store test runs on: SQLite always, PostgreSQL unless it cannot run here (the
 * reason is printed; under CI=true it always runs).
 */
export function storeEngines(what: string): { name: EngineName }[] {
  return postgresSkipReason(`${what} on PostgreSQL`) ? [{ name: 'sqlite' }] : [{ name: 'sqlite' }, { name: 'postgres' }];
}

export interface EngineHarness {
  readonly name: EngineName;
  /** A new, empty state database: a SQLite file in a temp folder, or a new PostgreSQL database. */
  fresh(): Promise<StateLocation>;
  /** A connection of the test's own that does not migrate (to write what a store never would). */
  raw(location: StateLocation): SqlDb;
  /** Makes the schema of `version` by hand, as an older hermes-gateway left it. */
  schemaAt(location: StateLocation, version: number): void;
  /** Records `version` as the database's schema version (what a newer hermes-gateway leaves). */
  markVersion(location: StateLocation, version: number): void;
  /** The schema version the database records. */
  version(location: StateLocation): number;
  /** The cluster, on PostgreSQL. */
  readonly server: TestPostgres | undefined;
}

/**
 * Hooks for one engine inside a describe: the PostgreSQL cluster is started before its tests
 * and stopped after; temp folders and connections the test opened are closed after each test.
 */
export function useEngine(name: EngineName): EngineHarness {
  const cluster = name === 'postgres' ? postgresPerGroup() : undefined;
  const dirs: string[] = [];
  const raws: SqlDb[] = [];
  afterEach(() => {
    for (const db of raws.splice(0)) db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const url = (location: StateLocation) => (typeof location === 'string' ? location : location.postgres);
  const harness: EngineHarness = {
    name,
    get server() {
      return cluster?.started;
    },
    async fresh() {
      if (name === 'sqlite') {
        const dir = mkdtempSync(join(tmpdir(), 'hermes-store-'));
        dirs.push(dir);
        return join(dir, 'state.db');
      }
      const server = cluster?.started;
      if (!server) throw new Error('the PostgreSQL cluster did not start');
      return { postgres: await server.createDatabase(), from: 'sessions.postgres_url' };
    },
    raw(location) {
      const db = typeof location === 'string' ? new SqliteDb(location) : new PostgresDb(url(location));
      raws.push(db);
      return db;
    },
    schemaAt(location, version) {
      const db = harness.raw(location);
      if (db instanceof SqliteDb) {
        for (const text of MIGRATIONS.slice(0, version)) db.exec(text);
        db.raw.pragma(`user_version = ${version}`);
        return;
      }
      db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      POSTGRES_MIGRATIONS.slice(0, version).forEach((text, index) => {
        db.exec(text);
        db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, 0)').run(index + 1);
      });
    },
    markVersion(location, version) {
      const db = harness.raw(location);
      if (db instanceof SqliteDb) {
        db.raw.pragma(`user_version = ${version}`);
        return;
      }
      db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, 0)').run(version);
    },
    version(location) {
      const db = harness.raw(location);
      if (db instanceof SqliteDb) return db.raw.pragma('user_version', { simple: true }) as number;
      return db.prepare<[], { v: number }>('SELECT MAX(version) AS v FROM schema_version').get()?.v ?? 0;
    },
  };
  return harness;
}
