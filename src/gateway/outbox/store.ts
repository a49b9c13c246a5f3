import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { openStateDb, StateTables, type StateDb, type StateLocation } from '../../sessions/index.js';

/** What an outbox turn is: an agent turn (its parts are its replies) or a single reply (a command's, a notice). */
export type OutboxKind = 'turn' | 'reply';

/**
 * `running` while the agent works; `finished` once every part is final (delivered or not);
 * `cut_off` when a restart found it running; `retried` once /retry ran it again.
 */
export type OutboxTurnState = 'running' | 'finished' | 'cut_off' | 'retried';

/** `open` while it streams, `final` once its text is settled, `delivered` once the platform confirmed it, `failed` when it gave up. */
export type OutboxPartState = 'open' | 'final' | 'delivered' | 'failed';

export interface OutboxTurn {
  id: string;
  kind: OutboxKind;
  platform: string;
  threadKey: string;
  /** The adapter's reply target, as JSON. */
  target: string;
  /** What the turn answered (for /retry). */
  input: string;
  state: OutboxTurnState;
  status: string | null;
  createdAt: number;
}

export interface OutboxPart {
  seq: number;
  turnId: string;
  /** The final text once `final`; before that, the text last shown. */
  text: string;
  state: OutboxPartState;
  messageId: string | null;
  attempts: number;
}

/*
 * Rows as the database gives them back, read with zod (never cast): a row that is not what the
 * schema made is an error that names the column, not a wrong value passed on.
 */
const turnRow = z
  .object({
    id: z.string(),
    kind: z.enum(['turn', 'reply']),
    platform: z.string(),
    thread_key: z.string(),
    target: z.string(),
    input: z.string(),
    state: z.enum(['running', 'finished', 'cut_off', 'retried']),
    status: z.string().nullable(),
    created_at: z.number(),
  })
  .transform(
    (row): OutboxTurn => ({
      id: row.id,
      kind: row.kind,
      platform: row.platform,
      threadKey: row.thread_key,
      target: row.target,
      input: row.input,
      state: row.state,
      status: row.status,
      createdAt: row.created_at,
    }),
  );

const partRow = z
  .object({
    seq: z.number(),
    turn_id: z.string(),
    text: z.string(),
    state: z.enum(['open', 'final', 'delivered', 'failed']),
    message_id: z.string().nullable(),
    attempts: z.number(),
  })
  .transform(
    (row): OutboxPart => ({
      seq: row.seq,
      turnId: row.turn_id,
      text: row.text,
      state: row.state,
      messageId: row.message_id,
      attempts: row.attempts,
    }),
  );

const seqRow = z.object({ seq: z.number() });
const targetRow = z.object({ platform: z.string(), target: z.string() });

/** Delivered turns are kept this long (for /retry and the log), then pruned at start-up. */
const KEEP_MS = 7 * 24 * 3600 * 1000;

/**
 * The outbox tables of the state database (schema 3). Each write is one statement or one transaction,
 * so a crash leaves every row either before or after a step, never half-way.
 */
export class OutboxStore extends StateTables {
  private constructor(db: StateDb) {
    super(db);
  }

  /** Opens the state database (state.db, a private `:memory:` one, or PostgreSQL) for the outbox. */
  static open(location: StateLocation): OutboxStore {
    return new OutboxStore(openStateDb(location));
  }

  /** Records a turn (or a single reply) before anything of it is sent; returns its id. */
  beginTurn(fields: { kind: OutboxKind; platform: string; threadKey: string; target: string; input: string; state?: OutboxTurnState }, now = Date.now()): string {
    const id = `o-${now.toString(36)}-${randomBytes(5).toString('hex')}`;
    this.sql(
      'INSERT INTO outbox_turns (id, kind, platform, thread_key, target, input, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(id, fields.kind, fields.platform, fields.threadKey, fields.target, fields.input, fields.state ?? 'running', now, now);
    return id;
  }

  /** Adds a part to a turn: `open` when it will stream, `final` when its text is known. */
  addPart(turnId: string, text: string, state: 'open' | 'final', now = Date.now()): number {
    return seqRow.parse(this.sql('INSERT INTO outbox_parts (turn_id, text, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING seq').get(turnId, text, state, now, now)).seq;
  }

  /** The platform's id of a part's message, once it has one, and the text it shows. */
  shown(seq: number, messageId: string | undefined, text: string): void {
    this.sql('UPDATE outbox_parts SET message_id = COALESCE(?, message_id), text = ?, updated_at = ? WHERE seq = ? AND state = ?').run(messageId ?? null, text, Date.now(), seq, 'open');
  }

  /** Settles a part's text: from now on it is delivered as exactly this. */
  finalize(seq: number, text: string): void {
    this.sql("UPDATE outbox_parts SET text = ?, state = 'final', updated_at = ? WHERE seq = ? AND state IN ('open', 'final')").run(text, Date.now(), seq);
  }

  /** Drops a part nothing of which reached the chat (a draft of an interrupted turn). */
  drop(seq: number): void {
    this.sql("DELETE FROM outbox_parts WHERE seq = ? AND state = 'open'").run(seq);
  }

  delivered(seq: number, messageId: string): void {
    this.sql("UPDATE outbox_parts SET state = 'delivered', message_id = ?, updated_at = ? WHERE seq = ?").run(messageId, Date.now(), seq);
  }

  /** Counts a failed attempt; `giveUp` marks the part failed. */
  attempted(seq: number, giveUp: boolean): void {
    this.sql(`UPDATE outbox_parts SET attempts = attempts + 1, state = ${giveUp ? "'failed'" : 'state'}, updated_at = ? WHERE seq = ?`).run(Date.now(), seq);
  }

  /** The turn ended: `finished` with its status, once all its parts are final. */
  finishTurn(turnId: string, status: string): void {
    this.sql("UPDATE outbox_turns SET state = 'finished', status = ?, updated_at = ? WHERE id = ? AND state = 'running'").run(status, Date.now(), turnId);
  }

  setState(turnId: string, state: OutboxTurnState): void {
    this.sql('UPDATE outbox_turns SET state = ?, updated_at = ? WHERE id = ?').run(state, Date.now(), turnId);
  }

  part(seq: number): OutboxPart | undefined {
    const row = this.sql('SELECT * FROM outbox_parts WHERE seq = ?').get(seq);
    return row === undefined ? undefined : partRow.parse(row);
  }

  parts(turnId: string): OutboxPart[] {
    return this.sql('SELECT * FROM outbox_parts WHERE turn_id = ? ORDER BY seq').all(turnId).map((row) => partRow.parse(row));
  }

  turn(id: string): OutboxTurn | undefined {
    const row = this.sql('SELECT * FROM outbox_turns WHERE id = ?').get(id);
    return row === undefined ? undefined : turnRow.parse(row);
  }

  /**
   * What a restart must take up, oldest first: turns that were still running (cut off), and
   * turns with parts not yet delivered.
   */
  unfinished(): OutboxTurn[] {
    const rows = this.sql(
      `SELECT * FROM outbox_turns t WHERE t.state = 'running'
         OR EXISTS (SELECT 1 FROM outbox_parts p WHERE p.turn_id = t.id AND p.state IN ('open', 'final'))
       ORDER BY t.created_at, t.id`,
    ).all();
    return rows.map((row) => turnRow.parse(row));
  }

  /** The thread's latest turn, if it was cut off by a restart or ended in an error: what /retry runs again. */
  retryable(threadKey: string): OutboxTurn | undefined {
    const row = this.sql("SELECT * FROM outbox_turns WHERE thread_key = ? AND kind = 'turn' ORDER BY created_at DESC, rowid DESC LIMIT 1").get(threadKey);
    const turn = row === undefined ? undefined : turnRow.parse(row);
    if (!turn || !turn.input.trim()) return undefined;
    return turn.state === 'cut_off' || (turn.state === 'finished' && turn.status === 'error') ? turn : undefined;
  }

  /** The platform and reply target (JSON) of the thread's latest entry: where a job made during its turn delivers. */
  latestTarget(threadKey: string): { platform: string; target: string } | undefined {
    const row = this.sql('SELECT platform, target FROM outbox_turns WHERE thread_key = ? ORDER BY created_at DESC, rowid DESC LIMIT 1').get(threadKey);
    return row === undefined ? undefined : targetRow.parse(row);
  }

  /** Forgets delivered turns older than a week. */
  prune(now = Date.now()): number {
    const cutoff = now - KEEP_MS;
    const result = this.sql(
      `DELETE FROM outbox_turns WHERE updated_at < ? AND state != 'running'
         AND NOT EXISTS (SELECT 1 FROM outbox_parts p WHERE p.turn_id = outbox_turns.id AND p.state IN ('open', 'final'))`,
    ).run(cutoff);
    return result.changes;
  }

  /** Runs `work` in one transaction. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work);
  }
}
