import { z } from 'zod';
import type { Logger } from '../shared/logger.js';
import type { SqlDb } from '../sessions/index.js';
import type { Person } from './person.js';

/** `memory`: the agent's notes about working with the person; `user`: the person's profile. */
export type NoteTarget = 'memory' | 'user';
export const NOTE_TARGETS: readonly NoteTarget[] = ['memory', 'user'];

const entryList = z.array(z.string());

/** The two notes of each person in the session database (table memory_notes): a list of entries each. */
export class NotesStore {
  constructor(
    private readonly db: SqlDb,
    private readonly logger: Logger,
  ) {}

  /** The entries of one note, oldest first; a row that cannot be read counts as empty (logged). */
  entries(person: Person, target: NoteTarget): string[] {
    const row = this.db
      .prepare<[string, string, string], { entries: string }>('SELECT entries FROM memory_notes WHERE account = ? AND person = ? AND target = ?')
      .get(person.account, person.id, target);
    if (!row) return [];
    try {
      const parsed = entryList.safeParse(JSON.parse(row.entries));
      if (parsed.success) return parsed.data;
    } catch {
      // fall through to the log line
    }
    this.logger.warn({ account: person.account, target }, 'memory: an unreadable note was ignored');
    return [];
  }

  /** Replaces one note's entries (an empty list removes the row). */
  save(person: Person, target: NoteTarget, entries: readonly string[]): void {
    if (entries.length === 0) {
      this.db.prepare('DELETE FROM memory_notes WHERE account = ? AND person = ? AND target = ?').run(person.account, person.id, target);
      return;
    }
    this.db
      .prepare(
        'INSERT INTO memory_notes (account, person, target, entries, updated_at) VALUES (?, ?, ?, ?, ?) ' +
          'ON CONFLICT (account, person, target) DO UPDATE SET entries = excluded.entries, updated_at = excluded.updated_at',
      )
      .run(person.account, person.id, target, JSON.stringify(entries), Date.now());
  }

  /** Removes both notes of a person (`/memory forget`); returns how many notes there were. */
  forget(person: Person): number {
    return this.db.prepare('DELETE FROM memory_notes WHERE account = ? AND person = ?').run(person.account, person.id).changes;
  }

  /** Runs `work` in one write transaction (a read-modify-write of a note). */
  atomically<T>(work: () => T): T {
    return this.db.transaction(work, 'immediate');
  }
}
