export { MemoryService, type MemoryServiceOptions, type MemoryTurn } from './memory-service.js';
export { MemoryNotes, ENTRY_DELIMITER, usageLine, noteChars, type MemorySettings, type NoteResult } from './notes.js';
export { NotesStore, NOTE_TARGETS, type NoteTarget } from './notes-store.js';
export { TurnSpeakers, rootSession, type Person } from './person.js';
export { memoryPromptSection } from './prompt-section.js';
export { SearchIndex, ownerToken, type SearchHit } from './search-index.js';
export { parseQuery, toFts5, toTsquery, type QueryTerm } from './search-query.js';
export { SkillsWriter, skillNameProblem, skillContentProblem, MAX_SKILL_CHARS, type SkillWriteResult } from './skills-writer.js';
export { memoryCommandReply, skillsCommandReply } from './commands.js';
