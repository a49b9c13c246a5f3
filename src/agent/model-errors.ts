import { HermesError, errorMessage } from '../shared/errors.js';
import type { HermesConfig } from '../config/schema.js';
import { readFailure, type ModelFailure } from './model-failure.js';

/**
 * A model request that failed for good. `message` is the plain reply the user sees: what
 * went wrong and what to change.
 */
export class ModelError extends HermesError {
  override readonly name: string = 'ModelError';
  constructor(
    code: string,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/**
 * The request was larger than the model's context window. `limit` is the window when the
 * server said it (OpenAI, vLLM and llama.cpp do); the agent compacts and tries once more.
 */
export class ContextLengthError extends ModelError {
  override readonly name = 'ContextLengthError';
  constructor(
    message: string,
    status: number,
    readonly limit: number | undefined,
    options?: { cause?: unknown },
  ) {
    super('MODEL_CONTEXT_LENGTH', message, status, options);
  }
}

/** Words servers use when a request does not fit the model's context. */
const CONTEXT_WORDS = /context[ _-]?length|context window|maximum context|too many tokens|prompt is too long|exceeds? the (?:model'?s? )?(?:max|context)/i;

/** The window a context-length message names (`maximum context length is 8192 tokens`). */
export function contextLimitIn(text: string): number | undefined {
  const match =
    /maximum context length is (\d[\d,]*)/i.exec(text) ??
    /context (?:length|window)(?: of| is|:)? (\d[\d,]*)/i.exec(text) ??
    /n_ctx(?:_slot)?\s*[=:]\s*(\d+)/i.exec(text) ??
    // Anthropic: `prompt is too long: 210000 tokens > 200000 maximum`
    /> ?(\d[\d,]*) maximum/i.exec(text) ??
    /(?:max(?:imum)?|limit)[^\d]{0,20}(\d[\d,]*) tokens/i.exec(text);
  const value = match ? Number.parseInt(match[1].replace(/,/g, ''), 10) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Whether a refused request was refused for its size. */
function isContextLengthRefusal(failure: ModelFailure & { kind: 'status' }): boolean {
  if (failure.code === 'context_length_exceeded' || failure.code === 'string_above_max_length') return true;
  if (failure.status !== 400 && failure.status !== 413 && failure.status !== 422) return false;
  return CONTEXT_WORDS.test(failure.message);
}

/** The turn's signal aborted while the model was asked. */
export class ModelAbortedError extends HermesError {
  override readonly name = 'ModelAbortedError';
  constructor(readonly reason: string) {
    super('MODEL_ABORTED', `model request cancelled: ${reason}`);
  }
}

/** Whether a failed request is worth another try: 408, 409, 429, 5xx and network errors (of either SDK). */
export function isRetryable(error: unknown): boolean {
  const failure = readFailure(error);
  if (failure.kind === 'timeout' || failure.kind === 'connection') return true;
  if (failure.kind !== 'status') return false;
  return failure.status === 408 || failure.status === 409 || failure.status === 429 || failure.status >= 500;
}

/** The server's own words about the error, short. */
function short(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Example settings shown when no model is configured or the endpoint is wrong. */
export const EXAMPLE_MODEL_SETTINGS = [
  'model:',
  '  base_url: https://api.openai.com/v1   # or http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8000/v1 (vLLM)',
  '  name: gpt-4o-mini                    # the model id the server knows',
  '  api_key_env: OPENAI_API_KEY          # the variable holding the key (set it in HERMES_HOME/.env)',
].join('\n');

/** The reply for an empty `model.name`. */
export function noModelConfigured(): ModelError {
  return new ModelError(
    'MODEL_NOT_CONFIGURED',
    'No model is configured, so I cannot answer yet. The web chat\'s settings form sets one without a restart; ' +
      'or set model.name (and model.base_url for a server other than OpenAI) in HERMES_HOME/config.yaml, e.g. ' +
      '`hermes config set model.name gpt-4o-mini`, and the key in HERMES_HOME/.env (a running gateway picks both up):\n\n' +
      // Fenced, so chat platforms keep its lines and indentation.
      '```yaml\n' +
      EXAMPLE_MODEL_SETTINGS +
      '\n```',
  );
}

/**
 * Turns a final failure of the model request into a {@link ModelError} whose message tells
 * the user what to fix.
 */
export function describeModelFailure(
  error: unknown,
  model: HermesConfig['model'],
  attempts: number,
  env: NodeJS.ProcessEnv,
): ModelError {
  const where = model.base_url;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  const failure = readFailure(error);
  if (failure.kind === 'timeout') {
    return new ModelError(
      'MODEL_TIMEOUT',
      `The model API at ${where} did not answer within ${model.timeout}s${tries}. Try again, or raise model.timeout if the model is slow.`,
      undefined,
      { cause: error },
    );
  }
  if (failure.kind === 'connection') {
    const cause = failure.cause ? ` (${errorMessage(failure.cause)})` : '';
    return new ModelError(
      'MODEL_UNREACHABLE',
      `I cannot reach the model API at ${where}${cause}${tries}. Check model.base_url and that the server is running.`,
      undefined,
      { cause: error },
    );
  }
  if (failure.kind === 'status') {
    const status = failure.status;
    const says = short(failure.message);
    const keyVar = model.api_key_env;
    const keySet = Boolean(env[keyVar]);
    if (status === 401 || status === 403) {
      const fix = keySet
        ? `Check that ${keyVar} holds a valid key for this server`
        : `Set ${keyVar} (the variable named by model.api_key_env) in HERMES_HOME/.env or the environment`;
      return new ModelError(
        'MODEL_AUTH',
        `The model API at ${where} refused the key (${status}: ${says}). ${fix}, then try again.`,
        status,
        { cause: error },
      );
    }
    if (status === 404) {
      return new ModelError(
        'MODEL_NOT_FOUND',
        `The model API at ${where} does not know the model "${model.name}" (404: ${says}). Check model.name ` +
          `(\`hermes config set model.name <id>\`) and that model.base_url points at the API root (it usually ends in /v1).`,
        status,
        { cause: error },
      );
    }
    if (status === 429) {
      return new ModelError(
        'MODEL_RATE_LIMITED',
        `The model API at ${where} is rate-limiting requests (429: ${says})${tries}. Wait a little and send your message again, or check your plan's quota.`,
        status,
        { cause: error },
      );
    }
    if (isContextLengthRefusal(failure)) {
      const full = failure.message;
      return new ContextLengthError(
        `The model API at ${where} refused the request as too long for the model's context window (${status}: ${says}). ` +
          'Send /new to start a fresh session (this one stays in state.db), or /undo to drop the last turn.',
        status,
        contextLimitIn(full),
        { cause: error },
      );
    }
    if (status >= 500) {
      return new ModelError(
        'MODEL_SERVER_ERROR',
        `The model API at ${where} failed with ${status}${tries} (${says}). It is the server's side; try again later.`,
        status,
        { cause: error },
      );
    }
    return new ModelError(
      'MODEL_REFUSED',
      `The model API at ${where} refused the request (${status}: ${says}). If the conversation has grown too long, ` +
        `start a new one with /new; otherwise check model.name, model.max_tokens and model.temperature for this server.`,
      status,
      { cause: error },
    );
  }
  return new ModelError('MODEL_FAILED', `The model request failed: ${errorMessage(error)}.`, undefined, { cause: error });
}
