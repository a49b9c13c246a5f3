import type { ApprovalRequest } from '../approvals/index.js';
import type { Audience, Environment } from '../environments/index.js';
import type { FileSender } from '../tools/types.js';
import type { McpServerStatus } from '../mcp/index.js';

/** What the agent reports while a turn runs; the gateway renders these through an adapter. */
export type AgentEvent =
  | { type: 'tool_started'; callId: string; name: string; args: unknown }
  /** `interrupted` is set when the turn was interrupted while the call ran: the reason, '' when it has none. */
  | { type: 'tool_finished'; callId: string; name: string; result: unknown; durationMs: number; interrupted?: string }
  /** Assistant text: an interim message between tool calls, or the final answer. */
  | { type: 'text'; text: string; final: boolean }
  /**
   * A piece of the assistant's text as the model writes it (`model.stream: true`), before the
   * `text` event that ends it. `restart` drops what this reply streamed so far: the request is retried.
   */
  | { type: 'text_delta'; delta: string; restart?: boolean }
  /** Whole lines a running tool (a script) printed, cleaned as its result will be; the result still says it all. */
  | { type: 'tool_output'; callId: string; name: string; text: string };

/** What waits for approval: a command, a file write or a script, why, and the signal that ends the wait. */
export type { ApprovalRequest } from '../approvals/index.js';

export interface RunTurnOptions {
  /** The thread key the gateway gives (`slack:T1:C1:1700000000.1`); one session per key. */
  sessionKey: string;
  text: string;
  /** Aborting interrupts the turn; `signal.reason` is shown to the model. */
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  /** Asks the user to approve a risky command; resolves false when denied or timed out. */
  requestApproval?: (request: ApprovalRequest) => Promise<boolean>;
  /** The sender as the gateway authorized them; `platform` is the account their memory is kept under. */
  user?: { id: string; name?: string; platform?: string };
  /** Who can write in this thread: other people's sessions run on `terminal.platform_backend`. Default `owner`. */
  audience?: Audience;
  /** Images that came with the message: image parts of the user message when `model.vision` allows. */
  images?: TurnImage[];
  /** Posts a file from the session's environment into the chat (the send_file tool); absent where there is no chat. */
  sendFile?: FileSender;
  /**
   * Messages the person sent while this turn runs (`gateway.busy_input_mode: steer`): taken at
   * each tool-call boundary and added to the turn, so a running script is not killed.
   */
  steer?: () => string[];
  /** System notes for this turn (the thread moved to another instance…), put before the person's text like the interrupted-turn note. */
  notes?: string[];
  /** The platform and chat id the message came from: `platforms.<name>.channels.<id>` applies (its model, its system prompt). */
  channel?: { platform: string; id: string };
}

/** An image for the model, as it arrived. */
export interface TurnImage {
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mimeType: string;
  data: Buffer;
}

export interface TurnResult {
  /** The answer shown to the user (also for errors: a plain sentence saying what to fix). */
  text: string;
  status: 'completed' | 'interrupted' | 'error' | 'max_iterations';
}

export interface SessionInfo {
  sessionId: string;
  createdAt: number;
  messageCount: number;
  kernel: 'none' | 'idle' | 'busy';
}

/** What /status and the start-up lines say about the agent. */
export interface AgentDescription {
  model: string;
  /** `terminal.backend`: the owner's sessions. */
  backend: string;
  /** The backend of other people's sessions (`terminal.platform_backend` resolved); `backend` when absent. */
  platformBackend?: string;
  /** Set when other people's sessions run on this host without isolation. */
  isolationWarning?: string;
  /** Set while a fallback of `model.fallbacks` answers: which model, and why the primary does not. */
  answeredBy?: string;
}

/** Tokens of a turn or a session, and their cost when `model.pricing` is set. */
export interface TokenCount {
  promptTokens: number;
  completionTokens: number;
  calls: number;
  /** Some of it was counted here because the API reported no usage. */
  estimated: boolean;
  /** Dollars, when `model.pricing` is set (for `model.name`'s tokens). */
  cost?: number;
  /** Of the prompt tokens, those read from the provider's prompt cache and those written to it. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** What `/usage` shows. */
export interface UsageReport {
  /** The model the thread uses now. */
  model: string;
  lastTurn?: TokenCount & { model: string };
  session: TokenCount & { summaries: number };
  /** The next request's size as the agent sees it, and the model's window. */
  context: { tokens: number; window: number; threshold: number };
  /** The last turn's system prompt, with the speaker's memory notes and the skills list in it. */
  prompt?: PromptSize;
}

/** A system prompt's size in tokens, and its memory notes' and skills list's part of it. */
export interface PromptSize {
  tokens: number;
  memoryTokens: number;
  skillsTokens: number;
  skills: number;
}

/** Settings a thread keeps across its sessions. */
export interface ThreadSettings {
  model?: string;
  toolProgress?: 'off' | 'new' | 'all';
  /** `/voice on` or `only` (absent: off). */
  voice?: 'on' | 'only';
}

/** A change to a thread's settings: `undefined` goes back to the configured default. */
export type ThreadSettingsPatch = { [Name in keyof ThreadSettings]?: ThreadSettings[Name] | undefined };

/** What `/undo` did: the text of the turn it dropped (what `/retry` sends again). */
export interface UndoResult {
  text: string;
  /** Messages taken out of the model's view (state.db keeps them). */
  removed: number;
}

/** What `/compress` did, in a sentence for the chat. */
export interface CompressResult {
  compacted: boolean;
  text: string;
}

/** What a script run without the model (`runScript`) ended as. */
export interface ScriptResult {
  status: 'success' | 'error' | 'timeout' | 'interrupted';
  output: string;
  error?: string;
}

/** The agent as the gateway and `hermes chat` see it. */
export interface AgentRunner {
  runTurn(options: RunTurnOptions): Promise<TurnResult>;
  /** `/new`: a fresh session for the key; the old one stays readable. Disposes its kernel. */
  newSession(sessionKey: string): Promise<void>;
  sessionInfo(sessionKey: string): SessionInfo | undefined;
  /** Model and backend names for /status. */
  describe(): AgentDescription;
  /** Each MCP server's state (/status); absent where none are wired. */
  mcpStatus?(): McpServerStatus[];
  /** `/reload-mcp`: reads mcp_servers again and applies it; the reply. */
  reloadMcp?(): Promise<string>;
  /** The environment the key's turns run in (the gateway moves files through it); absent where there is none. */
  environment?(sessionKey: string, audience: Audience): Promise<Environment>;
  /** `/usage`: tokens of the last turn and the session, the context's size; undefined before the first turn. */
  usage?(sessionKey: string): Promise<UsageReport | undefined>;
  /** The thread's settings (`/model`, `/verbose`). */
  threadSettings?(sessionKey: string): ThreadSettings;
  /** Changes the thread's settings (`undefined` goes back to the configured default); returns them. */
  updateThreadSettings?(sessionKey: string, patch: ThreadSettingsPatch): ThreadSettings;
  /** Model ids the endpoint lists, when it lists them (`/model` checks a name against them). */
  models?(): Promise<string[] | undefined>;
  /** `/undo`: drops the last turn from what the model sees; undefined when there is none. Runs after the key's running turn. */
  undo?(sessionKey: string): Promise<UndoResult | undefined>;
  /** Runs a script through execute_code in the key's session with no model call (scheduled jobs). */
  runScript?(sessionKey: string, code: string, options?: { signal?: AbortSignal; audience?: Audience }): Promise<ScriptResult>;
  /** `/compress`: compacts the session now. Runs after the key's running turn. */
  compress?(sessionKey: string, signal?: AbortSignal): Promise<CompressResult>;
  /** `/memory [forget]`: the sender's own notes (shown only where `direct`), or clears them. */
  memoryCommand?(sender: { platform: string; id: string }, args: string, direct: boolean): string;
  /** `/skills`: the installed skills, one line each. */
  skillsCommand?(): string;
  close(): Promise<void>;
}
