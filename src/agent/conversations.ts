import type { SessionStore } from '../sessions/index.js';
import { Conversation, type ConversationOptions, type ViewStore } from './context/conversation.js';

/** The session's view in state.db: the whole history and the view written together. */
function storeView(store: SessionStore, sessionId: string): ViewStore {
  return {
    append: (full, view) => store.appendWithView(sessionId, full, view),
    replace: (entries) => store.replaceContext(sessionId, entries),
    truncateFrom: (seq) => store.truncateContext(sessionId, seq),
  };
}

/**
 * The views of recently used sessions, kept in memory so a turn reads nothing of a long
 * history: a view is loaded from state.db once, and again only when its revision there
 * changed (another process wrote to the session). At most `limit` are kept.
 */
export class Conversations {
  private readonly cache = new Map<string, Conversation>();

  constructor(
    private readonly store: SessionStore,
    private readonly options: ConversationOptions,
    private readonly limit = 64,
  ) {}

  get(sessionId: string): Conversation {
    const rev = this.store.contextRev(sessionId);
    let conversation = this.cache.get(sessionId);
    if (conversation && conversation.rev === rev) {
      // Most recently used last: the first is the one to drop.
      this.cache.delete(sessionId);
      this.cache.set(sessionId, conversation);
      return conversation;
    }
    conversation = Conversation.load(this.store.context(sessionId), rev, storeView(this.store, sessionId), this.options);
    this.cache.delete(sessionId);
    this.cache.set(sessionId, conversation);
    while (this.cache.size > this.limit) this.cache.delete(this.cache.keys().next().value!);
    return conversation;
  }

  forget(sessionId: string): void {
    this.cache.delete(sessionId);
  }
}
