/**
 * Whose memory: the platform account a message came through and the sender's id there, as the
 * gateway authorized the message. Never taken from a model's or a script's arguments.
 */
export interface Person {
  /** The platform account (`slack`, `telegram`, `web`…). */
  account: string;
  /** The sender's id on that platform. */
  id: string;
}

/** The session a subagent (`<session>::child::<n>`) or a script call belongs to. */
export function rootSession(sessionId: string): string {
  const cut = sessionId.indexOf('::');
  return cut < 0 ? sessionId : sessionId.slice(0, cut);
}

/**
 * Who speaks in each running turn, by session: the agent sets it when a turn starts and
 * clears it when the turn ends, and the memory tools look the caller up by the session id of
 * their tool context (which the agent makes, never the model).
 */
export class TurnSpeakers {
  private readonly bySession = new Map<string, Person>();

  begin(sessionId: string, person: Person): void {
    this.bySession.set(sessionId, person);
  }

  end(sessionId: string): void {
    this.bySession.delete(sessionId);
  }

  /** The person whose turn the call (of a session, a subagent or a script) is part of. */
  of(sessionId: string): Person | undefined {
    return this.bySession.get(rootSession(sessionId));
  }
}
