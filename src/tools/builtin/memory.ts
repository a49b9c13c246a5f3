import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { NOTE_TARGETS, noteChars, usageLine, type MemoryService, type NoteTarget } from '../../memory/index.js';

const NO_PERSON = 'Memory needs a person: this call is not part of a chat turn with a known sender (a scheduled job, hermes exec).';

const memoryArgs = z
  .object({
    action: z.enum(['add', 'replace', 'remove', 'read']).optional().describe('add a new entry; replace or remove the entry holding old_text; read the entries. Leave out when giving operations'),
    target: z.enum(['memory', 'user']).optional().describe("'memory': your notes about working with this person; 'user': their profile (name, role, preferences). Default memory; read without it reads both"),
    content: z.string().optional().describe('The entry text: required for add and replace. Compact, one fact or preference per entry'),
    old_text: z.string().optional().describe('For replace and remove: a short unique substring of the existing entry'),
    operations: z
      .array(z.object({ action: z.enum(['add', 'replace', 'remove']), content: z.string().optional(), old_text: z.string().optional() }).strict())
      .optional()
      .describe('Several changes to one target at once, applied all or none, the limit checked on the result: each {action, content?, old_text?}'),
  })
  .strict();

/**
 * `memory`: the bounded notes about the person whose turn this is (hermes-agent's memory tool:
 * add, replace, remove; and read). The person comes from the turn, never from the arguments:
 * there is no argument that names one.
 */
export function memoryTool(memory: MemoryService) {
  return defineTool({
    name: 'memory',
    description:
      'Save durable facts about the person you are talking to, kept across sessions and threads and put into your system ' +
      "prompt whenever they write. target 'user': who they are (name, role, preferences, style); target 'memory': your notes " +
      'on working with them (conventions, environment, lessons). Save when they state a preference, a correction or a personal ' +
      'detail; skip what is trivial, temporary or easily found again (session_search finds past conversations; procedures ' +
      'belong in a skill). Each note has a character limit: when an add is refused, replace or remove entries to make room. ' +
      'Only this person ever sees these notes.',
    args: memoryArgs,
    async run(args, ctx) {
      const person = memory.speakers.of(ctx.sessionId);
      if (!person) return { error: NO_PERSON };
      const target: NoteTarget = args.target ?? 'memory';
      if (args.operations) return memory.notes.batch(person, target, args.operations);
      switch (args.action) {
        case 'read': {
          const targets = args.target ? [args.target] : NOTE_TARGETS;
          return {
            success: true,
            notes: targets.map((name) => {
              const entries = memory.notes.entries(person, name);
              return { target: name, entries, usage: usageLine(noteChars(entries), memory.notes.limit(name)), enabled: memory.notes.enabled(name) };
            }),
          };
        }
        case 'add':
          return memory.notes.add(person, target, args.content ?? '');
        case 'replace':
          return memory.notes.replace(person, target, args.old_text ?? '', args.content ?? '');
        case 'remove':
          return memory.notes.remove(person, target, args.old_text ?? '');
        case undefined:
          return { error: 'action is required (add, replace, remove or read), or operations for several changes.' };
      }
    },
  });
}
