import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { hermesPaths, validateConfig } from '../../src/config/index.js';
import { buildChildEnv } from '../../src/environments/index.js';
import { MIGRATION_LOCK_KEY, POSTGRES_MIGRATIONS, SessionStore, openStateDb, stateLocationFrom, type SqlDb } from '../../src/sessions/index.js';
import { numberPlaceholders } from '../../src/sessions/sql/index.js';
import { packageRoot, silentLogger } from '../../src/shared/index.js';
import { until } from '../coordination/helpers.js';
import { postgresPerGroup, postgresSkipReason } from '../helpers/postgres.js';

const missing = postgresSkipReason('the PostgreSQL store tests');
const distSessions = join(packageRoot(), 'dist/src/sessions/index.js');
const built = existsSync(distSessions);

describe('the PostgreSQL store\'s pieces that need no server', () => {
  it('numbers ? placeholders as $1… and leaves a ? in a string, a quoted name or a comment alone', () => {
    expect(numberPlaceholders("SELECT '?', 'it''s ?', \"a?\", ? -- what ?\n FROM t WHERE a = ? AND b = ?")).toEqual({
      text: "SELECT '?', 'it''s ?', \"a?\", $1 -- what ?\n FROM t WHERE a = $2 AND b = $3",
      count: 3,
    });
  });

  it('takes the address from sessions.postgres_url, else HERMES_POSTGRES_URL, else DATABASE_URL; a missing or foreign one names the key', () => {
    const paths = hermesPaths('/nonexistent-home');
    const config = (postgres_url = '') => validateConfig({ sessions: { store: 'postgres', postgres_url } }, 'test').config;
    const both = { HERMES_POSTGRES_URL: 'postgres://h/one', DATABASE_URL: 'postgres://h/two' };
    expect(stateLocationFrom(config('postgresql://h/zero'), paths, both)).toEqual({ postgres: 'postgresql://h/zero', from: 'sessions.postgres_url' });
    expect(stateLocationFrom(config(), paths, both)).toEqual({ postgres: 'postgres://h/one', from: 'HERMES_POSTGRES_URL' });
    expect(stateLocationFrom(config(), paths, { DATABASE_URL: 'postgres://h/two' })).toEqual({ postgres: 'postgres://h/two', from: 'DATABASE_URL' });
    expect(() => stateLocationFrom(config(), paths, {})).toThrow(/set sessions\.postgres_url, or HERMES_POSTGRES_URL or DATABASE_URL/);
    expect(() => stateLocationFrom(config(), paths, { DATABASE_URL: 'mysql://u:pw@h/db' })).toThrow(/DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//);
    expect(stateLocationFrom(validateConfig({}, 'test').config, paths, both)).toBe(paths.stateDb);
  });

  it('no child process gets the address variables, not even when they are passed through on purpose', () => {
    stateLocationFrom(validateConfig({ sessions: { store: 'postgres' } }, 'test').config, hermesPaths('/nonexistent-home'), { DATABASE_URL: 'postgres://u:pw@h/db' });
    const env = buildChildEnv({
      source: { PATH: '/usr/bin', DATABASE_URL: 'postgres://u:pw@h/db', HERMES_POSTGRES_URL: 'postgres://u:pw@h/db' },
      passthrough: ['DATABASE_URL', 'HERMES_POSTGRES_URL'],
    });
    expect(env).toEqual({ PATH: '/usr/bin' });
  });
});

describe.runIf(!missing)('the state database on a real PostgreSQL', () => {
  const cluster = postgresPerGroup();
  const opened: { close(): void }[] = [];
  afterEach(() => {
    for (const db of opened.splice(0)) db.close();
  });
  const openDb = (url: string): SqlDb => {
    const db = openStateDb({ postgres: url, from: 'sessions.postgres_url' });
    opened.push(db);
    return db;
  };

  it('two store objects (two instances) on one database see each other\'s writes at once', async () => {
    const location = { postgres: await cluster.server.createDatabase(), from: 'DATABASE_URL' };
    const a = SessionStore.open(location, { logger: silentLogger() });
    const b = SessionStore.open(location, { logger: silentLogger() });
    opened.push(a, b);
    const session = a.currentOrCreate('telegram:42');
    a.append(session.id, { role: 'user', content: 'asked on A' });
    expect(b.currentOrCreate('telegram:42').id).toBe(session.id);
    expect(b.messages(session.id)).toEqual([{ role: 'user', content: 'asked on A' }]);
    b.append(session.id, { role: 'assistant', content: 'answered on B' });
    b.threadSettings.update('telegram:42', { model: 'm2' });
    expect(a.messages(session.id).map((m) => m.content)).toEqual(['asked on A', 'answered on B']);
    expect(a.context(session.id).map((row) => row.message.content)).toEqual(['asked on A', 'answered on B']);
    expect(a.threadSettings.get('telegram:42')).toEqual({ model: 'm2' });
    const [first] = b.context(session.id);
    const rev = b.updateContext(session.id, [{ ...first, tokens: 7 }]);
    expect(a.context(session.id)[0].tokens).toBe(7);
    expect(a.contextRev(session.id)).toBe(rev);
  });

  it('after the server ends its connection (a restart, a failover), the store connects again and goes on', async () => {
    const url = await cluster.server.createDatabase();
    const store = SessionStore.open({ postgres: url, from: 'sessions.postgres_url' }, { logger: silentLogger() });
    opened.push(store);
    const session = store.currentOrCreate('k');
    store.append(session.id, { role: 'user', content: 'before' });
    const backends = async () =>
      (await cluster.server.query<{ pid: number }>(url, "SELECT pid FROM pg_stat_activity WHERE application_name = 'hermes-gateway' AND datname = current_database()")).map((row) => row.pid);
    const [before] = await backends();
    await cluster.server.query(url, 'SELECT pg_terminate_backend($1)', [before]);
    await until(async () => !(await backends()).includes(before), 'the backend to end');
    await until(() => {
      try {
        return store.messageCount(session.id) === 1;
      } catch {
        return false;
      }
    }, 'the store to connect again');
    store.append(session.id, { role: 'user', content: 'after' });
    expect(store.messages(session.id).map((m) => m.content)).toEqual(['before', 'after']);
    const now = await backends();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(before);
  });

  it('gives BIGINT timestamps, counts and sums back as numbers, as SQLite does', async () => {
    const store = SessionStore.open({ postgres: await cluster.server.createDatabase(), from: 'sessions.postgres_url' }, { logger: silentLogger() });
    opened.push(store);
    const session = store.currentOrCreate('k');
    store.usage.add(session.id, { kind: 'turn', model: 'a', calls: 1, promptTokens: 5_000_000_000, completionTokens: 1, estimated: false });
    store.append(session.id, { role: 'user', content: 'x' });
    expect(typeof session.createdAt).toBe('number');
    expect(typeof store.current('k')?.createdAt).toBe('number');
    expect(store.messageCount(session.id)).toBe(1);
    expect(store.usage.summary(session.id).byModel[0].promptTokens).toBe(5_000_000_000);
  });

  it('a transaction that throws leaves nothing; a nested one that throws undoes only itself', async () => {
    const db = openDb(await cluster.server.createDatabase());
    const count = () => db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM thread_settings').get()?.n;
    const put = db.prepare('INSERT INTO thread_settings (key, settings, updated_at) VALUES (?, ?, ?)');
    expect(() =>
      db.transaction(() => {
        put.run('a', '{}', 1);
        throw new Error('the work failed');
      }, 'immediate'),
    ).toThrow('the work failed');
    expect(count()).toBe(0);
    db.transaction(() => {
      put.run('outer', '{}', 1);
      expect(() =>
        db.transaction(() => {
          put.run('inner', '{}', 1);
          throw new Error('inner failed');
        }),
      ).toThrow('inner failed');
    });
    expect(db.prepare<[], { key: string }>('SELECT key FROM thread_settings').all()).toEqual([{ key: 'outer' }]);
    // A statement that fails inside a transaction rolls it back and leaves the connection usable.
    expect(() => db.transaction(() => put.run('outer', '{}', 1))).toThrow(/duplicate key value violates unique constraint/);
    expect(count()).toBe(1);
  });

  it('an unreachable or wrong address fails naming the key and host:port, never the password', async () => {
    // A port nothing listens on: one the system just gave out and took back.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
      });
    });
    const password = 'Sup3r-s3cret-pw';
    let error: unknown;
    try {
      SessionStore.open({ postgres: `postgres://hermes:${password}@127.0.0.1:${closed}/state`, from: 'DATABASE_URL' }, { logger: silentLogger() });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain('DATABASE_URL');
    expect(message).toContain(`127.0.0.1:${closed}`);
    expect(message).not.toContain(password);
    expect(JSON.stringify(error)).not.toContain(password);
    expect(String((error as Error).stack)).not.toContain(password);

    let wrongDb: unknown;
    try {
      SessionStore.open({ postgres: `postgres://postgres:${password}@127.0.0.1:${cluster.server.port}/no_such_db`, from: 'sessions.postgres_url' }, { logger: silentLogger() });
    } catch (caught) {
      wrongDb = caught;
    }
    expect((wrongDb as Error).message).toMatch(/sessions\.postgres_url.*127\.0\.0\.1:\d+\/no_such_db.*database "no_such_db" does not exist/);
    expect((wrongDb as Error).message).not.toContain(password);
  });

  it.runIf(built || process.env.CI === 'true')('several processes opening one new database at once migrate it once (they wait for the advisory lock)', async () => {
    const url = await cluster.server.createDatabase();
    // Hold the migration's lock, so every process is waiting inside its migration before any goes on.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const script = `
      const { SessionStore } = await import(${JSON.stringify(distSessions)});
      const { silentLogger } = await import(${JSON.stringify(join(packageRoot(), 'dist/src/shared/index.js'))});
      const store = SessionStore.open({ postgres: process.argv[1], from: 'test' }, { logger: silentLogger() });
      store.currentOrCreate('k-' + process.pid);
      store.close();
      console.log('opened');`;
    const children = [0, 1, 2].map(() => execa('node', ['--input-type=module', '-e', script, url], { reject: false }));
    try {
      await until(async () => {
        const rows = (await holder.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows;
        return rows[0].n === 3;
      }, 'three processes waiting for the migration lock', 20_000);
    } finally {
      await holder.end();
    }
    const results = await Promise.all(children);
    for (const result of results) expect(`${result.exitCode} ${result.stdout} ${result.stderr}`).toBe('0 opened ');
    const versions = await cluster.server.query<{ version: number }>(url, 'SELECT version FROM schema_version ORDER BY version');
    expect(versions.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((_, index) => index + 1));
    const sessions = await cluster.server.query<{ n: number }>(url, 'SELECT COUNT(*)::int AS n FROM sessions');
    expect(sessions[0].n).toBe(3);
  }, 60_000);
});
