import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { HermesError, errorMessage } from '../shared/errors.js';
import type { HermesConfig } from '../config/schema.js';

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
    /(?:max(?:imum)?|limit)[^\d]{0,20}(\d[\d,]*) tokens/i.exec(text);
  const value = match ? Number.parseInt(match[1].replace(/,/g, ''), 10) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Whether a refused request was refused for its size. */
function isContextLengthRefusal(error: APIError): boolean {
  if (error.code === 'context_length_exceeded' || error.code === 'string_above_max_length') return true;
  if (error.status !== 400 && error.status !== 413 && error.status !== 422) return false;
  return CONTEXT_WORDS.test(serverSays(error));
}

/** The turn's signal aborted while the model was asked. */
export class ModelAbortedError extends HermesError {
  override readonly name = 'ModelAbortedError';
  constructor(readonly reason: string) {
    super('MODEL_ABORTED', `model request cancelled: ${reason}`);
  }
}

/** Whether a failed request is worth another try: 408, 409, 429, 5xx and network errors. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIConnectionError) return true;
  if (error instanceof APIError && typeof error.status === 'number') {
    return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
  }
  return false;
}

/** The server's own words about the error, short. */
function serverSays(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : error.message;
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
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError(
      'MODEL_TIMEOUT',
      `The model API at ${where} did not answer within ${model.timeout}s${tries}. Try again, or raise model.timeout if the model is slow.`,
      undefined,
      { cause: error },
    );
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause ? ` (${errorMessage(error.cause)})` : '';
    return new ModelError(
      'MODEL_UNREACHABLE',
      `I cannot reach the model API at ${where}${cause}${tries}. Check model.base_url and that the server is running.`,
      undefined,
      { cause: error },
    );
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const says = serverSays(error);
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
    if (isContextLengthRefusal(error)) {
      const full = typeof (error.error as { message?: unknown } | undefined)?.message === 'string' ? String((error.error as { message: string }).message) : error.message;
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
