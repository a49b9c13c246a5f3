import type { SqlValue } from './types.js';

/** What the main thread asks the PostgreSQL worker (postgres-worker.ts). */
export type WorkerRequest =
  | { op: 'open'; url: string; lockTimeoutMs: number }
  /** `name` prepares the statement once per connection; `reconnect` allows a new connection when the old one died (outside a transaction). */
  | { op: 'query'; conn: number; text: string; values: SqlValue[]; name?: string; reconnect: boolean }
  /** Several statements without parameters (the simple query protocol). */
  | { op: 'exec'; conn: number; text: string; reconnect: boolean }
  | { op: 'close'; conn: number };

/** The worker's answer: errors are values, so nothing depends on how an Error crosses threads. */
export type WorkerAnswer =
  | { ok: true; conn: number; rows: Record<string, unknown>[]; rowCount: number }
  | { ok: false; message: string; code?: string };
