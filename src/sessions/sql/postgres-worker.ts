import pg from 'pg';
import { runAsWorker } from 'synckit';
import type { WorkerAnswer, WorkerRequest } from './worker-protocol.js';

/*
 * Runs in a worker thread: the PostgreSQL connections of this process, each a pg Client, and
 * the queries the main thread sends while it waits (postgres-db.ts).
 */

// int8 (COUNT, BIGINT ms timestamps, BIGSERIAL seqs) and numeric (SUM of BIGINT) come back as
// numbers, as SQLite gives them; pg gives strings by default. Every such value here is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, Number);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, Number);

interface Connection {
  client: pg.Client;
  url: string;
  lockTimeoutMs: number;
  /** Set when the connection failed between queries; the next query outside a transaction reconnects. */
  broken?: Error;
}

const connections = new Map<number, Connection>();
let nextConn = 1;

async function connect(url: string, lockTimeoutMs: number): Promise<Connection> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 10_000,
    // A writer waits this long for another instance's lock, as SQLite's busy timeout.
    lock_timeout: lockTimeoutMs,
    keepAlive: true,
    // The caller is blocked while it waits: a server that stopped answering fails the statement instead of hanging the gateway.
    query_timeout: 60_000,
    application_name: 'hermes-gateway',
  });
  const connection: Connection = { client, url, lockTimeoutMs };
  // A server restart or a dropped link: noted here (this thread is idle between requests), mended at the next request.
  client.on('error', (error) => (connection.broken ??= error));
  client.on('end', () => (connection.broken ??= new Error('the server closed the connection')));
  await client.connect();
  return connection;
}

async function usable(conn: number, reconnect: boolean): Promise<Connection> {
  const connection = connections.get(conn);
  if (!connection) throw new Error('the connection is closed');
  if (!connection.broken) return connection;
  if (!reconnect) throw new Error(`the connection was lost during a transaction (${connection.broken.message})`);
  void connection.client.end().catch(() => {});
  const fresh = await connect(connection.url, connection.lockTimeoutMs);
  connections.set(conn, fresh);
  return fresh;
}

async function handle(request: WorkerRequest): Promise<WorkerAnswer> {
  switch (request.op) {
    case 'open': {
      const connection = await connect(request.url, request.lockTimeoutMs);
      const conn = nextConn++;
      connections.set(conn, connection);
      return { ok: true, conn, rows: [], rowCount: 0 };
    }
    case 'query': {
      const connection = await usable(request.conn, request.reconnect);
      const result = request.name
        ? await connection.client.query({ name: request.name, text: request.text, values: request.values })
        : await connection.client.query(request.text, request.values);
      return { ok: true, conn: request.conn, rows: result.rows as Record<string, unknown>[], rowCount: result.rowCount ?? 0 };
    }
    case 'exec': {
      const connection = await usable(request.conn, request.reconnect);
      await connection.client.query(request.text);
      return { ok: true, conn: request.conn, rows: [], rowCount: 0 };
    }
    case 'close': {
      const connection = connections.get(request.conn);
      connections.delete(request.conn);
      await connection?.client.end().catch(() => {});
      return { ok: true, conn: request.conn, rows: [], rowCount: 0 };
    }
  }
}

runAsWorker(async (request: WorkerRequest): Promise<WorkerAnswer> => {
  try {
    return await handle(request);
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
    return { ok: false, message: error instanceof Error ? error.message : String(error), ...(code ? { code } : {}) };
  }
});
