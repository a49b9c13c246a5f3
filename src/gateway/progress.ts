import type { AgentEvent } from '../agent/types.js';
import type { Logger } from '../shared/logger.js';
import type { PlatformAdapter, ReplyTarget } from './types.js';

export type ToolProgressMode = 'off' | 'new' | 'all';

/** Lines kept in the progress message; older ones are summarised as a count. */
const MAX_LINES = 20;
const PREVIEW_CHARS = 60;
const DEFAULT_EDIT_INTERVAL_MS = 1000;

/**
 * Tool activity of one turn, shown in one message that is edited in place and throttled to
 * the adapter's `streaming.minEditIntervalMs`. `new` adds a line when the tool changes, `all` adds one
 * per call. Adapters without `edit` get no progress message.
 */
export class ToolProgress {
  private lines: ProgressLine[] = [];
  /** Tool call id → its line (in `new` mode a call of the same tool shares the line before). */
  private readonly lineOf = new Map<string, ProgressLine>();
  private hidden = 0;
  private lastTool: string | undefined;
  private messageId: string | undefined;
  private shown = '';
  private lastEdit = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Sends and edits run one after another, never at once. */
  private chain: Promise<void> = Promise.resolve();
  private finished = false;

  constructor(
    private readonly adapter: PlatformAdapter,
    private readonly replyTo: ReplyTarget,
    private readonly mode: ToolProgressMode,
    private readonly logger: Logger,
  ) {}

  private get enabled(): boolean {
    return this.mode !== 'off' && typeof this.adapter.edit === 'function';
  }

  /**
   * Takes an agent event: `tool_started` adds a line, and a `tool_finished` whose call was
   * interrupted marks its line, once. The message was sent when the turn's first tool started,
   * so the mark sits under the interrupted turn, above the message that interrupted it.
   */
  onEvent(event: AgentEvent): void {
    if (!this.enabled || this.finished) return;
    if (event.type === 'tool_finished') return this.onFinished(event.callId, event.interrupted);
    if (event.type !== 'tool_started') return;
    const previous = this.lines.at(-1);
    if (this.mode === 'new' && event.name === this.lastTool && previous) {
      this.lineOf.set(event.callId, previous);
      return;
    }
    this.lastTool = event.name;
    const line: ProgressLine = { text: progressLine(event.name, event.args) };
    this.lineOf.set(event.callId, line);
    this.lines.push(line);
    if (this.lines.length > MAX_LINES) {
      this.hidden += this.lines.length - MAX_LINES;
      this.lines = this.lines.slice(-MAX_LINES);
    }
    this.schedule();
  }

  private onFinished(callId: string, reason: string | undefined): void {
    const line = this.lineOf.get(callId);
    this.lineOf.delete(callId);
    if (!line || reason === undefined || line.interrupted !== undefined) return;
    line.interrupted = reason;
    if (this.lines.includes(line)) this.schedule();
  }

  /** Stops editing after one last update; resolves when the message is up to date. */
  async finish(): Promise<void> {
    if (this.finished) return this.chain;
    this.finished = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.enqueue();
    }
    return this.chain;
  }

  private text(): string {
    const head = this.hidden > 0 ? [`… ${this.hidden} earlier`] : [];
    const text = [...head, ...this.lines.map(shownLine)].join('\n');
    return text.length > this.adapter.maxMessageLength ? text.slice(-this.adapter.maxMessageLength) : text;
  }

  private schedule(): void {
    if (this.messageId === undefined && this.lastEdit === 0) {
      this.lastEdit = Date.now();
      this.enqueue();
      return;
    }
    if (this.timer) return;
    const interval = this.adapter.streaming?.minEditIntervalMs ?? DEFAULT_EDIT_INTERVAL_MS;
    const wait = Math.max(0, this.lastEdit + interval - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.enqueue();
    }, wait);
    this.timer.unref?.();
  }

  private enqueue(): void {
    this.chain = this.chain.then(() => this.flush());
  }

  private async flush(): Promise<void> {
    const text = this.text();
    if (text === this.shown) return;
    this.lastEdit = Date.now();
    try {
      if (this.messageId === undefined) {
        this.messageId = (await this.adapter.send(this.replyTo, text)).messageId;
      } else {
        await this.adapter.edit?.(this.replyTo, this.messageId, text);
      }
      this.shown = text;
    } catch (error) {
      this.logger.warn({ err: error }, 'could not update the tool progress message');
    } finally {
      this.lastEdit = Date.now();
    }
  }
}

interface ProgressLine {
  text: string;
  /** Set once the call was interrupted: why (`user sent a new message`). */
  interrupted?: string;
}

/** `⚙️ execute_code: …` becomes `⚙️ execute_code: … — ⏹ interrupted (user sent a new message)`. */
function shownLine(line: ProgressLine): string {
  if (line.interrupted === undefined) return line.text;
  const why = line.interrupted ? ` (${line.interrupted})` : '';
  return `${line.text} — ⏹ interrupted${why}`;
}

/** `⚙️ terminal: ls -la` — the tool and a short look at its main argument. */
export function progressLine(name: string, args: unknown): string {
  const preview = argumentPreview(args);
  return preview ? `⚙️ ${name}: ${preview}` : `⚙️ ${name}`;
}

function argumentPreview(args: unknown): string {
  if (typeof args !== 'object' || args === null) return '';
  const first = Object.values(args as Record<string, unknown>).find((value) => typeof value === 'string');
  if (typeof first !== 'string') return '';
  const line = first.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}
