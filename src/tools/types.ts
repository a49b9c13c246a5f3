import { z } from 'zod';
import type { Logger } from '../shared/logger.js';
import type { Environment } from '../environments/types.js';
import type { HermesConfig } from '../config/schema.js';
import type { HermesPaths } from '../config/paths.js';
import type { ApprovalRequest } from '../approvals/index.js';

/** What a tool handler may use: who calls, how to stop, and where to run things. */
export interface ToolContext {
  /** The session (or subagent owner `<session>::child::<id>`) the call belongs to. */
  sessionId: string;
  /** Aborts when the turn is interrupted; `signal.reason` is the reason shown to the model. */
  signal: AbortSignal;
  /** The session's terminal backend; tools run commands and touch files through it. */
  environment: Environment;
  logger: Logger;
  config: HermesConfig;
  paths: HermesPaths;
  /** The settings' environment: the keys a tool reads (web search's); none when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Names passed through to children for this session beyond `terminal.env_passthrough` (skills). */
  passthrough?: ReadonlySet<string>;
  /** Asks the user to approve a risky command or write; absent means there is nobody to ask (deny). It ends on `request.signal`. */
  requestApproval?: (request: ApprovalRequest) => Promise<boolean>;
  /** Tools the session has enabled; execute_code offers scripts only these of the seven. */
  enabledTools?: readonly string[];
  /** Posts a file from `environment` into the chat the turn answers (send_file); absent where there is no chat. */
  sendFile?: FileSender;
  /** Sees a running script's stdout as it is written (the web chat shows it live); raw bytes, not yet cleaned. */
  onOutput?: (chunk: Buffer) => void;
}

/**
 * Pulls `path` out of `environment` and posts it in the turn's chat. Rejects with an Error
 * whose message says what was wrong and what to do (no such file, over the platform's limit).
 */
export type FileSender = (request: { path: string; caption?: string; environment: Environment; signal: AbortSignal }) => Promise<SentFile>;

/** What send_file reports back. */
export interface SentFile {
  /** The name the chat shows. */
  name: string;
  bytes: number;
  mime_type: string;
}

/** A JSON schema object, as sent to the model. */
export type JsonSchema = Record<string, unknown>;

/** What a tool may answer (sent to the model as JSON, to a script as a dict or a string). */
export type ToolResult = object | string;

/** What a tool hands back: its own result, or `{ error }` (handlers do not throw). */
export type ToolOutcome<Out> = Out | ToolError;

/**
 * A tool the model (or a script, over RPC) can call, made with `defineTool`: `In` is what its
 * arguments may be before defaults are filled in, `Out` what it answers besides `{ error }`.
 * Both entries check the arguments against the tool's schema; neither throws.
 */
export interface Tool<In = unknown, Out extends ToolResult = ToolResult> {
  name: string;
  description: string;
  /** The description for a session whose enabled tools are `enabled`, when it depends on them (execute_code lists only those). */
  describe?(enabled: ReadonlySet<string>): string;
  parameters: JsonSchema;
  /** Runs with the arguments as they came (the model's JSON, a script's call). */
  handler(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome<Out>>;
  /** Runs with typed arguments (an in-process caller). */
  run(args: In, ctx: ToolContext): Promise<ToolOutcome<Out>>;
}

export interface ToolError {
  error: string;
}

const toolError = z.object({ error: z.string() });

export function isToolError(value: unknown): value is ToolError {
  return toolError.safeParse(value).success;
}
