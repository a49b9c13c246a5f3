import { redactSecrets } from '../shared/redact.js';
import type { NoteTarget, NotesStore } from './notes-store.js';
import type { Person } from './person.js';

/** The `memory:` section of config.yaml, as hermes-agent names its keys. */
export interface MemorySettings {
  memory_enabled: boolean;
  user_profile_enabled: boolean;
  memory_char_limit: number;
  user_char_limit: number;
}

/** Entries of one note are joined by this line when counted and shown, as hermes-agent does. */
export const ENTRY_DELIMITER = '\n§\n';

const LABELS: Record<NoteTarget, string> = { memory: 'memory', user: 'user profile' };
const KEYS: Record<NoteTarget, keyof MemorySettings> = { memory: 'memory_char_limit', user: 'user_char_limit' };

/** What a change answers: the note's use of its limit, or `{ error }` with what to do. */
export type NoteResult =
  | { success: true; done: true; target: NoteTarget; usage: string; entry_count: number; message: string; masked?: string; note: string }
  | { error: string; current_entries?: string[]; usage?: string };

export function noteChars(entries: readonly string[]): number {
  return entries.length === 0 ? 0 : entries.join(ENTRY_DELIMITER).length;
}

const thousands = (n: number) => n.toLocaleString('en-US');

/** "12% — 264/2,200 chars". */
export function usageLine(chars: number, limit: number): string {
  const pct = limit > 0 ? Math.min(100, Math.floor((chars / limit) * 100)) : 0;
  return `${pct}% — ${thousands(chars)}/${thousands(limit)} chars`;
}

/**
 * The two bounded notes of each person: add, replace and remove by a short unique substring
 * (as hermes-agent's memory tool), each change checked against the note's character limit
 * and every text passed through the redactor first, so no credential is ever stored.
 */
export class MemoryNotes {
  constructor(
    private readonly store: NotesStore,
    private readonly settings: () => MemorySettings,
  ) {}

  enabled(target: NoteTarget): boolean {
    const settings = this.settings();
    return target === 'memory' ? settings.memory_enabled : settings.user_profile_enabled;
  }

  limit(target: NoteTarget): number {
    return Number(this.settings()[KEYS[target]]);
  }

  entries(person: Person, target: NoteTarget): string[] {
    return this.store.entries(person, target);
  }

  forget(person: Person): number {
    return this.store.forget(person);
  }

  add(person: Person, target: NoteTarget, content: string): NoteResult {
    const clean = cleaned(content);
    if (!clean.text) return { error: 'content is required for add and cannot be empty.' };
    return this.change(person, target, (entries) => {
      if (entries.includes(clean.text)) return { entries, message: 'Entry already exists (no duplicate added).' };
      return { entries: [...entries, clean.text], message: 'Entry added.' };
    }, clean.masked);
  }

  replace(person: Person, target: NoteTarget, oldText: string, content: string): NoteResult {
    const clean = cleaned(content);
    const needle = oldText.trim();
    if (!needle) return { error: 'old_text is required for replace: a short unique substring of the entry to replace.' };
    if (!clean.text) return { error: 'content cannot be empty for replace; use remove to delete an entry.' };
    return this.change(person, target, (entries) => {
      const index = this.match(entries, needle);
      if (typeof index === 'string') return index;
      const next = [...entries];
      next[index] = clean.text;
      return { entries: next, message: 'Entry replaced.' };
    }, clean.masked);
  }

  remove(person: Person, target: NoteTarget, oldText: string): NoteResult {
    const needle = oldText.trim();
    if (!needle) return { error: 'old_text is required for remove: a short unique substring of the entry to remove.' };
    return this.change(person, target, (entries) => {
      const index = this.match(entries, needle);
      if (typeof index === 'string') return index;
      return { entries: entries.filter((_, i) => i !== index), message: 'Entry removed.' };
    });
  }

  /**
   * Several changes to one note at once (hermes-agent's `operations`): applied in order to a
   * copy, checked against the limit only at the end, saved all or not at all.
   */
  batch(person: Person, target: NoteTarget, operations: ReadonlyArray<{ action: 'add' | 'replace' | 'remove'; content?: string; old_text?: string }>): NoteResult {
    if (operations.length === 0) return { error: 'operations is empty.' };
    const masks: string[] = [];
    const prepared = operations.map((op) => {
      const clean = cleaned(op.content ?? '');
      if (clean.masked) masks.push(clean.masked);
      return { ...op, text: clean.text, needle: (op.old_text ?? '').trim() };
    });
    return this.change(person, target, (entries) => {
      let working = [...entries];
      for (const [i, op] of prepared.entries()) {
        const where = `Operation ${i + 1} (${op.action})`;
        if (op.action === 'add') {
          if (!op.text) return `${where}: content is required. Nothing was applied (the batch is all or nothing).`;
          if (!working.includes(op.text)) working.push(op.text);
          continue;
        }
        if (!op.needle) return `${where}: old_text is required. Nothing was applied (the batch is all or nothing).`;
        if (op.action === 'replace' && !op.text) return `${where}: content is required (use remove to delete). Nothing was applied.`;
        const index = this.match(working, op.needle);
        if (typeof index === 'string') return `${where}: ${index} Nothing was applied (the batch is all or nothing).`;
        working = op.action === 'remove' ? working.filter((_, k) => k !== index) : working.map((entry, k) => (k === index ? op.text : entry));
      }
      return { entries: working, message: `Applied ${operations.length} operation(s).` };
    }, masks[0]);
  }

  /** The index of the one entry holding `needle`, or the error to answer. */
  private match(entries: readonly string[], needle: string): number | string {
    const found = entries.map((entry, index) => ({ entry, index })).filter(({ entry }) => entry.includes(needle));
    if (found.length === 0) return `No entry matched '${needle}'. Check current_entries and retry with part of the entry's exact text.`;
    if (new Set(found.map(({ entry }) => entry)).size > 1) return `Multiple entries matched '${needle}'. Be more specific.`;
    return found[0].index;
  }

  /** Read, change and write one note in one transaction, refusing a result over the limit. */
  private change(
    person: Person,
    target: NoteTarget,
    edit: (entries: string[]) => { entries: string[]; message: string } | string,
    masked?: string,
  ): NoteResult {
    if (!this.enabled(target)) return { error: `The ${LABELS[target]} note is turned off (memory.${target === 'memory' ? 'memory_enabled' : 'user_profile_enabled'}: false).` };
    const limit = this.limit(target);
    return this.store.atomically((): NoteResult => {
      const entries = this.store.entries(person, target);
      const outcome = edit(entries);
      if (typeof outcome === 'string') return { error: outcome, current_entries: entries, usage: usageLine(noteChars(entries), limit) };
      const chars = noteChars(outcome.entries);
      if (chars > limit) {
        return {
          error:
            `The ${LABELS[target]} note would hold ${thousands(chars)} characters; its limit is ${thousands(limit)} ` +
            `(memory.${KEYS[target]}). Nothing was saved. Shorten the text, or replace or remove entries (current_entries) to make room.`,
          current_entries: entries,
          usage: usageLine(noteChars(entries), limit),
        };
      }
      this.store.save(person, target, outcome.entries);
      return {
        success: true,
        done: true,
        target,
        usage: usageLine(chars, limit),
        entry_count: outcome.entries.length,
        message: outcome.message,
        ...(masked ? { masked } : {}),
        note: 'Write saved. This update is complete — do not repeat it.',
      };
    });
  }
}

/** The text as stored: trimmed, every credential masked (and said so). */
function cleaned(content: string): { text: string; masked?: string } {
  const names: string[] = [];
  const text = redactSecrets(content.trim(), (name) => names.push(name));
  return names.length > 0 ? { text, masked: `A credential in the text was masked before saving (${[...new Set(names)].join(', ')}); notes never hold secrets.` } : { text };
}
