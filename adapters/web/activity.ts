import { randomBytes } from 'node:crypto';
import type { AgentEvent } from '../../src/agent/types.js';
import type { TurnNotice } from '../../src/gateway/types.js';
import { APPROVAL_BUTTONS, approvalButtonData } from '../../src/gateway/approval-buttons.js';
import type { LiveChannel } from './live-hub.js';
import type { TranscriptStore } from './transcript.js';
import type { FileEntry, FileRef, NoticeEntry, ToolEntry, WebEntry } from './types.js';
import { clip, describeArgs, toolOutcome } from './tool-outcome.js';

type FinishStatus = Extract<TurnNotice, { type: 'turn_finished' }>['status'];

interface TurnState {
  busy: boolean;
  /** Tool call id → entry id, for the calls still running in this turn. */
  running: Map<string, string>;
  /** Assistant text already shown in this turn, so a `send()` of the same answer is not shown twice. */
  shown: string[];
  /** The entry the model's text is streaming into, until its `text` event ends it. */
  streaming?: string;
  /** The first message the user sent while this turn ran: the turn's closing notice goes above it. */
  laterMessage?: string;
  /** The thread's last entry when the turn started: a message recorded after it by another instance came while it ran. */
  startedAfter?: string;
}

/** How the agent's reply for an empty model.name begins (src/agent/model-errors.ts noModelConfigured). */
const NO_MODEL_REPLY = 'No model is configured';

const FINISH_NOTICES: Record<'interrupted' | 'error' | 'max_iterations', Omit<NoticeEntry, 'id' | 'at' | 'kind'>> = {
  interrupted: { tone: 'warning', text: 'Turn interrupted — the agent stopped working on this message.' },
  error: { tone: 'error', text: 'The turn ended with an error.' },
  max_iterations: { tone: 'warning', text: 'The turn stopped at the step limit (agent.max_iterations).' },
};

/** An entry id that stays unique across restarts and turns (model call ids repeat). */
export function entryId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/**
 * Turns what happens in a thread — the user's messages, the agent's events, the gateway's
 * turn notices and replies — into transcript entries, and publishes each to the page.
 */
export class ThreadActivity {
  private readonly turns = new Map<string, TurnState>();

  constructor(
    private readonly store: TranscriptStore,
    private readonly hub: LiveChannel,
  ) {}

  /** True while a turn runs in the thread, here or on another instance. */
  isBusy(threadId: string): boolean {
    return (this.turns.get(threadId)?.busy ?? false) || this.hub.busyElsewhere(threadId);
  }

  /** Records a message the user sent from the page (with the files it brought). */
  userMessage(threadId: string, text: string, id = entryId('u'), files: FileRef[] = []): WebEntry {
    const turn = this.turns.get(threadId);
    if (turn?.busy) turn.laterMessage ??= id;
    return this.put(threadId, { kind: 'user', id, at: Date.now(), text, ...(files.length > 0 ? { files } : {}) });
  }

  /** Records a file the agent sent; returns its entry id. */
  file(threadId: string, fields: Omit<FileEntry, 'kind' | 'id' | 'at'>): string {
    return this.put(threadId, { kind: 'file', id: entryId('f'), at: Date.now(), ...fields }).id;
  }

  /** Records a notice the page shows between messages. */
  notice(threadId: string, text: string, tone: NoticeEntry['tone']): WebEntry {
    return this.put(threadId, { kind: 'notice', id: entryId('n'), at: Date.now(), text, tone });
  }

  /** Records an approval request with its buttons (`APPROVAL_BUTTONS`, each carrying its typed press); returns its entry id. */
  approval(threadId: string, text: string, requestId: string): string {
    const buttons = APPROVAL_BUTTONS.map(({ label, tone, choice }) => ({ label, tone, data: approvalButtonData(requestId, choice) }));
    return this.put(threadId, { kind: 'approval', id: entryId('p'), at: Date.now(), text, state: 'waiting', requestId, buttons }).id;
  }

  /** Whether the thread has this approval request still waiting (a press for anything else is refused). */
  isWaitingApproval(threadId: string, requestId: string): boolean {
    return this.store.entries(threadId).some((entry) => entry.kind === 'approval' && entry.state === 'waiting' && entry.requestId === requestId);
  }

  /** Replaces an approval request's text with how it ended; its buttons go. */
  settleApproval(threadId: string, id: string, text: string): void {
    const entry = this.store.entry(threadId, id);
    if (entry?.kind !== 'approval') throw new Error(`web chat: no approval request ${id} in thread ${threadId}`);
    const { buttons: _gone, ...rest } = entry;
    this.put(threadId, { ...rest, text, state: 'settled' });
  }

  /** Renders an AgentEvent or a TurnNotice the gateway passes to `onAgentEvent`. */
  agentEvent(threadId: string, event: AgentEvent | TurnNotice): void {
    const turn = this.turn(threadId);
    switch (event.type) {
      case 'turn_started':
        turn.busy = true;
        turn.shown = [];
        turn.running.clear();
        turn.startedAfter = this.store.lastEntryId(threadId);
        this.hub.publish(threadId, { type: 'busy', busy: true });
        return;
      case 'tool_started': {
        const id = entryId('t');
        turn.running.set(event.callId, id);
        this.put(threadId, { kind: 'tool', id, at: Date.now(), name: event.name, status: 'running', ...describeArgs(event.name, event.args) });
        return;
      }
      case 'tool_finished': {
        const id = turn.running.get(event.callId);
        turn.running.delete(event.callId);
        const started = id ? this.store.entry(threadId, id) : undefined;
        const base: ToolEntry =
          started?.kind === 'tool'
            ? started
            : { kind: 'tool', id: id ?? entryId('t'), at: Date.now(), name: event.name, status: 'running' };
        this.put(threadId, { ...base, ...toolOutcome(event.result, event.interrupted), durationMs: event.durationMs });
        return;
      }
      case 'text': {
        const id = turn.streaming ?? entryId('a');
        turn.streaming = undefined;
        if (!event.text.trim()) return;
        turn.shown.push(event.text);
        this.put(threadId, { kind: 'assistant', id, at: Date.now(), text: event.text, interim: !event.final });
        return;
      }
      case 'tool_output': {
        // A running script's lines, as they come; the result replaces them when it returns.
        const id = turn.running.get(event.callId);
        const entry = id ? this.store.entry(threadId, id) : undefined;
        if (entry?.kind !== 'tool' || entry.status !== 'running') return;
        this.put(threadId, { ...entry, output: clip((entry.output ?? '') + event.text) });
        return;
      }
      case 'text_delta':
        return;
      case 'turn_finished':
        this.finishRunningTools(threadId, turn, event.status);
        // The no-model reply is an instruction (the settings form), not a failure to flag.
        if (event.status !== 'completed' && !(event.status === 'error' && turn.shown.at(-1)?.startsWith(NO_MODEL_REPLY))) {
          this.closingNotice(threadId, turn, { kind: 'notice', id: entryId('n'), at: Date.now(), ...FINISH_NOTICES[event.status] });
        }
        turn.laterMessage = undefined;
        turn.startedAfter = undefined;
        turn.busy = false;
        this.hub.publish(threadId, { type: 'busy', busy: false });
        return;
    }
  }

  /**
   * Records a reply the gateway sends (`adapter.send`) and returns its entry id. A reply the
   * agent's text events already showed in this turn (the same answer, or a chunk of it) is
   * not shown twice; its entry id is returned instead.
   */
  reply(threadId: string, text: string): string {
    const turn = this.turn(threadId);
    const chunk = text.trim();
    if (chunk) {
      const seen = turn.shown.findIndex((shown) => shown.includes(chunk));
      if (seen >= 0) {
        const existing = this.store
          .entries(threadId)
          .findLast((entry) => entry.kind === 'assistant' && entry.text === turn.shown[seen]);
        if (existing) return existing.id;
      }
    }
    turn.shown.push(text);
    return this.put(threadId, { kind: 'assistant', id: entryId('a'), at: Date.now(), text, interim: false }).id;
  }

  /** Shows the model's text so far in the turn's streaming entry (the page re-renders it). */
  streamText(threadId: string, text: string): string {
    const turn = this.turn(threadId);
    turn.streaming ??= entryId('a');
    return this.put(threadId, { kind: 'assistant', id: turn.streaming, at: Date.now(), text, interim: false, streaming: true }).id;
  }

  /**
   * How the turn ended, under the turn: when a message came in while it ran (the one that
   * interrupted it), the notice goes above that message, and the pages get the thread again
   * in its order (a snapshot: an entry event only ever appends).
   */
  private closingNotice(threadId: string, turn: TurnState, notice: NoticeEntry): void {
    const later = turn.laterMessage ?? this.userMessageSince(threadId, turn.startedAfter);
    if (!later || !this.store.entry(threadId, later)) {
      this.put(threadId, notice);
      return;
    }
    this.store.putBefore(threadId, notice, later);
    this.hub.publish(threadId, { type: 'snapshot', entries: this.store.entries(threadId), busy: turn.busy });
  }

  /**
   * The first user message after `entryId`: with several instances, the message that
   * interrupted the turn may have been recorded by the instance the page posted it to.
   */
  private userMessageSince(threadId: string, entryId: string | undefined): string | undefined {
    if (!entryId) return undefined;
    const entries = this.store.entries(threadId);
    const at = entries.findIndex((entry) => entry.id === entryId);
    return at < 0 ? undefined : entries.slice(at + 1).find((entry) => entry.kind === 'user')?.id;
  }

  private finishRunningTools(threadId: string, turn: TurnState, status: FinishStatus): void {
    // A turn can end without a tool_finished for a call (aborted mid-call): show how it ended.
    for (const id of turn.running.values()) {
      const entry = this.store.entry(threadId, id);
      if (entry?.kind !== 'tool' || entry.status !== 'running') continue;
      this.put(threadId, { ...entry, status: status === 'interrupted' ? 'interrupted' : 'error', error: `the turn ended (${status}) before the tool returned` });
    }
    turn.running.clear();
  }

  private turn(threadId: string): TurnState {
    let turn = this.turns.get(threadId);
    if (!turn) this.turns.set(threadId, (turn = { busy: false, running: new Map(), shown: [] }));
    return turn;
  }

  private put<E extends WebEntry>(threadId: string, entry: E): E {
    this.store.put(threadId, entry);
    this.hub.publish(threadId, { type: 'entry', entry });
    return entry;
  }
}
