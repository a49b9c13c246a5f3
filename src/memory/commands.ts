import { ENTRY_DELIMITER, noteChars, usageLine } from './notes.js';
import type { MemoryService } from './memory-service.js';
import type { Person } from './person.js';

/**
 * `/memory` shows the sender their own notes — only in a direct chat, since a group would
 * see them — and `/memory forget` clears both (anywhere: it reveals nothing).
 */
export function memoryCommandReply(memory: MemoryService, person: Person, args: string, direct: boolean): string {
  const word = args.trim().toLowerCase();
  if (word === 'forget' || word === 'clear') {
    const removed = memory.notes.forget(person);
    return removed > 0 ? 'Forgot everything I noted about you (your memory and profile notes are empty now).' : 'I had no notes about you; nothing to forget.';
  }
  if (word) return '/memory shows what I noted about you; /memory forget clears it.';
  if (!direct) return 'Your notes are yours alone: send /memory in a direct message to see them. /memory forget works here too.';
  const parts: string[] = [];
  for (const [target, title] of [['memory', 'My notes about working with you'], ['user', 'Your profile']] as const) {
    const entries = memory.notes.entries(person, target);
    const head = `${title} (${usageLine(noteChars(entries), memory.notes.limit(target))})${memory.notes.enabled(target) ? '' : ' — turned off'}:`;
    parts.push(entries.length > 0 ? `${head}\n${entries.join(ENTRY_DELIMITER)}` : `${head}\n(empty)`);
  }
  parts.push('/memory forget clears both.');
  return parts.join('\n\n');
}

/** `/skills`: the installed skills, one line each. */
export function skillsCommandReply(skills: ReadonlyArray<{ name: string; description: string }>, dir: string): string {
  if (skills.length === 0) return `No skills yet. The agent writes them with skill_manage into ${dir}.`;
  return [`Skills (${skills.length}), read with skill_view:`, ...skills.map((skill) => `- ${skill.name}: ${skill.description || '(no description)'}`)].join('\n');
}
