import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MIGRATIONS, POSTGRES_MIGRATIONS, openStateDb, type SqlDb, type StateLocation } from '../../src/sessions/index.js';
import { storeEngines, useEngine, type EngineHarness } from './engines.js';

// The SQL of every version as the code that kept two lists (migrations.ts, postgres-migrations.ts) shipped it.
const shipped = z
  .object({ sqlite: z.array(z.string()), postgres: z.array(z.string()) })
  .parse(JSON.parse(readFileSync(new URL('./fixtures/shipped-migrations.json', import.meta.url), 'utf8')));

describe('the one list of schema steps', () => {
  it('renders every shipped version on SQLite exactly as it shipped', () => {
    expect(MIGRATIONS.slice(0, shipped.sqlite.length)).toEqual(shipped.sqlite);
  });

  it('renders every shipped version on PostgreSQL exactly as it shipped', () => {
    expect(POSTGRES_MIGRATIONS.slice(0, shipped.postgres.length)).toEqual(shipped.postgres);
  });

  it('has a version for both engines, one for one', () => {
    expect(POSTGRES_MIGRATIONS).toHaveLength(MIGRATIONS.length);
  });
});

/** Builds the schema of `version` with the shipped SQL alone, as the old code's runner left it, and a session with a message. */
function shippedDatabaseAt(engine: EngineHarness, location: StateLocation, version: number): void {
  const db = engine.raw(location);
  const texts = engine.name === 'sqlite' ? shipped.sqlite : shipped.postgres;
  if (engine.name === 'postgres') db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
  texts.slice(0, version).forEach((text, index) => {
    db.exec(text);
    if (engine.name === 'postgres') db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, 0)').run(index + 1);
  });
  if (engine.name === 'sqlite') db.exec(`PRAGMA user_version = ${version}`);
  if (version >= 1) {
    db.prepare("INSERT INTO sessions (id, key, created_at, updated_at) VALUES ('s1', 'telegram:1', 1, 1)").run();
    db.prepare(`INSERT INTO messages (session_id, created_at, message) VALUES ('s1', 1, '{"role":"user","content":"hi"}')`).run();
  }
}

/** The schema and every row, in an order both runs share, to compare two databases by. */
function contents(db: SqlDb): unknown {
  if (db.engine === 'sqlite') {
    const tables = db
      .prepare<[], { name: string; sql: string | null }>("SELECT type || ' ' || name AS name, sql FROM sqlite_master ORDER BY type, name")
      .all();
    const rows = tables
      .filter((table) => table.name.startsWith('table ') && !table.name.startsWith('table sqlite_'))
      .map((table) => db.prepare(`SELECT * FROM "${table.name.slice('table '.length)}" ORDER BY 1`).all());
    return { tables, rows };
  }
  const columns = db
    .prepare(
      `SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default, is_generated, generation_expression
       FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    )
    .all();
  const indexes = db.prepare('SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname').all();
  const names = db
    .prepare<[], { name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name <> 'schema_version' ORDER BY table_name")
    .all();
  const rows = names.map((table) => db.prepare(`SELECT * FROM "${table.name}" ORDER BY 1`).all());
  const versions = db.prepare('SELECT version FROM schema_version ORDER BY version').all();
  return { columns, indexes, rows, versions };
}

describe.each(storeEngines('the shipped-migrations tests'))('a database an older hermes-gateway made, on $name', ({ name }) => {
  const engine = useEngine(name);

  it('migrates from every earlier version to what the shipped SQL makes', async () => {
    for (let version = 0; version <= shipped.sqlite.length; version++) {
      // The old way: the shipped SQL of every version, one after another.
      const old = await engine.fresh();
      shippedDatabaseAt(engine, old, version);
      const oldDb = engine.raw(old);
      (name === 'sqlite' ? shipped.sqlite : shipped.postgres).slice(version).forEach((text, index) => {
        oldDb.exec(text);
        if (name === 'postgres') oldDb.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, 0)').run(version + index + 1);
      });

      // The new way: the same starting database opened by today's code.
      const now = await engine.fresh();
      shippedDatabaseAt(engine, now, version);
      openStateDb(now).close();

      expect(contents(engine.raw(now)), `from version ${version}`).toEqual(contents(oldDb));
      expect(engine.version(now)).toBe(MIGRATIONS.length);
    }
  });
});
