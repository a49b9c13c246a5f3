import type { Logger } from '../shared/logger.js';
import type { SqlDb } from '../sessions/index.js';
import { errorMessage } from '../shared/errors.js';
import { MemoryNotes, type MemorySettings } from './notes.js';
import { NotesStore } from './notes-store.js';
import { TurnSpeakers, type Person } from './person.js';
import { memoryPromptSection } from './prompt-section.js';
import { SearchIndex } from './search-index.js';
import { SkillsWriter } from './skills-writer.js';

export interface MemoryServiceOptions {
  /** The session database (SessionStore.database): notes and the index live beside the sessions. */
  db: SqlDb;
  settings: () => MemorySettings;
  /** HERMES_HOME/skills. */
  skillsDir: string;
  logger: Logger;
}

/** A turn as the memory sees it: whose it is, in which session and thread. */
export interface MemoryTurn {
  sessionId: string;
  threadKey: string;
  person: Person | undefined;
}

/**
 * The agent's memory: each person's notes, the index of what they said, and the skills the
 * agent writes. The agent calls `beginTurn` and `endTurn` around every turn; the tools find
 * the caller through `speakers`, by the session id of their tool context.
 */
export class MemoryService {
  readonly notes: MemoryNotes;
  readonly index: SearchIndex;
  readonly speakers = new TurnSpeakers();
  readonly skills: SkillsWriter;
  private readonly logger: Logger;
  private readonly started = new Map<string, number>();

  constructor(options: MemoryServiceOptions) {
    this.logger = options.logger;
    this.notes = new MemoryNotes(new NotesStore(options.db, options.logger), options.settings);
    this.index = new SearchIndex(options.db);
    this.skills = new SkillsWriter(options.skillsDir);
  }

  /** Where a session's next message will start: taken before the turn adds its first one. */
  mark(sessionId: string): number {
    try {
      return this.index.lastSeq(sessionId);
    } catch (error) {
      this.logger.warn({ err: error, session: sessionId }, `memory: could not read the session's last message: ${errorMessage(error)}`);
      return Number.MAX_SAFE_INTEGER;
    }
  }

  /** Marks whose turn runs in the session and where its messages start (`mark`); returns their notes for the prompt. */
  beginTurn(turn: MemoryTurn, fromSeq: number): string | undefined {
    if (!turn.person) return undefined;
    this.speakers.begin(turn.sessionId, turn.person);
    this.started.set(turn.sessionId, fromSeq);
    try {
      return memoryPromptSection(this.notes, turn.person);
    } catch (error) {
      this.logger.warn({ err: error, session: turn.sessionId }, `memory: could not read the notes: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** Indexes what the turn added under its person, and forgets who spoke. Never throws. */
  endTurn(turn: MemoryTurn): void {
    this.speakers.end(turn.sessionId);
    const fromSeq = this.started.get(turn.sessionId);
    this.started.delete(turn.sessionId);
    if (!turn.person || fromSeq === undefined) return;
    try {
      this.index.indexTurn({ sessionId: turn.sessionId, threadKey: turn.threadKey, person: turn.person, fromSeq });
    } catch (error) {
      this.logger.warn({ err: error, session: turn.sessionId }, `memory: could not index the turn for session_search: ${errorMessage(error)}`);
    }
  }
}
