import type { ReplyTarget } from '../../src/gateway/types.js';

/** Where a web chat reply goes: the thread (`web:<id>`) and its id. */
export interface WebReplyTarget extends ReplyTarget {
  threadId: string;
}

/**
 * What the web chat shows: one entry per message, tool call or notice. Entries are kept per
 * thread in the transcript and streamed to the page; a later entry with the same `id`
 * replaces the earlier one (a tool call goes from `running` to its outcome).
 */
export type WebEntry = UserEntry | AssistantEntry | ToolEntry | NoticeEntry | ApprovalEntry | FileEntry;

interface EntryBase {
  id: string;
  /** Milliseconds since the epoch, when the entry first appeared. */
  at: number;
}

export interface UserEntry extends EntryBase {
  kind: 'user';
  text: string;
  /** Files sent with the message. */
  files?: FileRef[];
}

/** A file as the page names it: its id, a safe name, its type and size. */
export interface FileRef {
  id: string;
  name: string;
  mimeType: string;
  size: number;
}

/**
 * A file the agent sent (send_file, a MEDIA: line): a download link, and for PNG, JPEG, GIF
 * and WebP an inline preview; `url` is served with the chat's login.
 */
export interface FileEntry extends EntryBase {
  kind: 'file';
  file: FileRef;
  url: string;
  /** True when the page shows the picture inline (never for SVG or HTML). */
  preview: boolean;
  caption?: string;
}

export interface AssistantEntry extends EntryBase {
  kind: 'assistant';
  /** Markdown; the page renders it and sanitizes the HTML. */
  text: string;
  /** True for text the model wrote between tool calls, before its answer. */
  interim: boolean;
  /** True while the model is still writing it. */
  streaming?: boolean;
}

/** `running` until the tool returns; then what execute_code (or any tool) reported. */
export type ToolStatus = 'running' | 'success' | 'error' | 'timeout' | 'interrupted';

export interface ToolEntry extends EntryBase {
  kind: 'tool';
  name: string;
  status: ToolStatus;
  /** execute_code's script. */
  code?: string;
  /** Other tools' arguments, as JSON text. */
  args?: string;
  /** What the script printed, or the tool's result as JSON text. */
  output?: string;
  /** Why it failed, timed out or was interrupted. */
  error?: string;
  durationMs?: number;
}

export interface NoticeEntry extends EntryBase {
  kind: 'notice';
  text: string;
  tone: 'info' | 'warning' | 'error';
}

/**
 * A request waiting for approval, with buttons while it waits; once it ends the same entry
 * comes again, settled, with the line that says how (`✅ Approved by You.`).
 */
export interface ApprovalEntry extends EntryBase {
  kind: 'approval';
  /** Markdown: the request, then how to answer, or how it ended. */
  text: string;
  state: 'waiting' | 'settled';
  /** The gateway's id of the request: a press must name it (absent on entries older than typed presses). */
  requestId?: string;
  /** While it waits: the buttons of `APPROVAL_BUTTONS`, each with the data its press sends back. */
  buttons?: ApprovalButtonView[];
}

/** One approval button as the page renders it: its label, its tone, and `approvalButtonData(requestId, choice)`. */
export interface ApprovalButtonView {
  label: string;
  tone: 'approve' | 'primary' | 'neutral' | 'deny';
  data: string;
}

/** A thread as the thread list shows it. */
export interface WebThreadSummary {
  id: string;
  title: string;
  /** Milliseconds since the epoch of the last entry (or of creation). */
  updatedAt: number;
}

/** What the page hears on a thread's event stream. */
export type LiveEvent =
  | { type: 'snapshot'; entries: WebEntry[]; busy: boolean }
  | { type: 'entry'; entry: WebEntry }
  | { type: 'busy'; busy: boolean }
  /** The thread was deleted (in another tab too): the page leaves it. */
  | { type: 'deleted' };
