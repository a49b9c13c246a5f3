import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { freePort, type LoopbackServer, outputTail, requireAvailable, skipReasonOutsideCi } from './loopback-server.js';

/** The folder holding initdb and postgres: on PATH, else Debian's /usr/lib/postgresql/<version>/bin (newest first). */
function binDir(): string | undefined {
  const onPath = spawnSync('initdb', ['--version'], { stdio: 'ignore' });
  if (!onPath.error && onPath.status === 0) return '';
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')) && existsSync(join(root, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], 'bin') : undefined;
}

/** Why a real PostgreSQL cannot run here, or undefined when it can. */
export function postgresUnavailable(): string | undefined {
  if (binDir() === undefined) return 'PostgreSQL is not installed (apt-get install postgresql)';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres'], { stdio: 'ignore' }).status !== 0) {
    return 'running as root and there is no postgres user to run initdb as (it refuses root)';
  }
  return undefined;
}

/**
 * The reason to skip the PostgreSQL tests, printed once, or undefined when they run. Under
 * CI=true nothing skips: a missing PostgreSQL fails the tests that need it instead.
 */
export function postgresSkipReason(what: string): string | undefined {
  return skipReasonOutsideCi(what, postgresUnavailable);
}

export interface TestPostgres extends LoopbackServer {
  /** A fresh database; returns its URL (`postgres://postgres@127.0.0.1:<port>/<name>`, trust auth: any password is accepted). */
  createDatabase(name?: string): Promise<string>;
  /** Runs one statement on the database at `url` (the test's own look at what a store wrote). */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(url: string, text: string, values?: unknown[]): Promise<R[]>;
}

/** initdb and postgres refuse root: as root they run as the postgres user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function postgresUid(): { uid: number; gid: number } {
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function waitReady(url: string, child: ChildProcess, said: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres exited with code ${child.exitCode}: ${said()}`);
    try {
      await withClient(url, (client) => client.query('SELECT 1'));
      return;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`postgres did not accept connections within ${timeoutMs} ms (${last}): ${said()}`);
}

let databases = 0;

/**
 * Starts a private throwaway PostgreSQL cluster: initdb into a temp folder (trust auth), then
 * postgres listening on 127.0.0.1 only, on a free port, its socket in the same folder, fsync
 * off. `stop()` shuts it down and removes the folder.
 */
export async function startPostgres(): Promise<TestPostgres> {
  requireAvailable(postgresUnavailable);
  const bin = binDir() ?? '';
  const tool = (name: string) => (bin ? join(bin, name) : name);
  const root = process.getuid?.() === 0;
  // As root the folder must be one the postgres user can reach (the run's TMPDIR is root's, 0700).
  const dir = mkdtempSync(join(root ? '/tmp' : tmpdir(), 'hermes-pg-'));
  const data = join(dir, 'data');
  if (root) {
    const { uid, gid } = postgresUid();
    chownSync(dir, uid, gid);
  }
  const [initCommand, initArgs] = asPostgres(tool('initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const init = spawnSync(initCommand, initArgs, { encoding: 'utf8', cwd: dir });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
  }
  const port = await freePort();
  const [command, args] = asPostgres(tool('postgres'), [
    '-D', data, '-k', dir, '-p', String(port),
    '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'shared_buffers=16MB',
  ]);
  const child = spawn(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const said = outputTail(child);
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // The postmaster (our child's child when run through runuser): SIGINT is its fast shutdown.
      const pidFile = join(data, 'postmaster.pid');
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : NaN;
      if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGINT');
      else child.kill('SIGINT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(urlOf('postgres'), child, said, 20_000);
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
  return {
    host: '127.0.0.1',
    port,
    dir,
    async createDatabase(name = `hermes_${process.pid}_${++databases}`) {
      await withClient(urlOf('postgres'), (client) => client.query(`CREATE DATABASE "${name}"`));
      return urlOf(name);
    },
    async query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
      return withClient(url, async (client) => (await client.query<R>(text, values)).rows);
    },
    stop,
  };
}

/** The cluster of a describe group: `server` throws until it is up, `started` is undefined until then. */
export interface PostgresGroup {
  readonly server: TestPostgres;
  readonly started: TestPostgres | undefined;
}

/** Call inside a describe: a private cluster (startPostgres) before its tests, stopped after them. */
export function postgresPerGroup(): PostgresGroup {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get server() {
      if (!server) throw new Error('the PostgreSQL cluster did not start');
      return server;
    },
    get started() {
      return server;
    },
  };
}
