import * as OpenAIErrors from 'openai';
import * as AnthropicErrors from '@anthropic-ai/sdk';

/**
 * A failed model request read the same way whichever SDK threw it: the OpenAI and the
 * Anthropic SDKs have classes of the same names but not the same classes, so the retry,
 * fallback and error-message code reads this one shape instead of testing both.
 */
export type ModelFailure =
  | { kind: 'aborted' }
  | { kind: 'timeout' }
  | { kind: 'connection'; cause?: unknown }
  | { kind: 'status'; status: number; headers?: Headers; message: string; code?: string }
  | { kind: 'other' };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The server's own words: `{error: {message}}` (OpenAI's body part, Anthropic's whole body) or the error's message. */
function serverWords(body: unknown, fallback: string): { message: string; code?: string } {
  const inner = isObject(body) && isObject(body.error) ? body.error : body;
  const message = isObject(inner) && typeof inner.message === 'string' ? inner.message : fallback;
  const code = isObject(inner) && typeof inner.code === 'string' ? inner.code : undefined;
  return { message, ...(code ? { code } : {}) };
}

/** The HTTP status each Anthropic error type comes with, for the errors a stream sends as an event. */
const STREAM_ERROR_STATUS: Record<string, number> = { overloaded_error: 529, rate_limit_error: 429, api_error: 500, timeout_error: 504 };

export function readFailure(error: unknown): ModelFailure {
  if (error instanceof OpenAIErrors.APIUserAbortError || error instanceof AnthropicErrors.APIUserAbortError) return { kind: 'aborted' };
  if (error instanceof OpenAIErrors.APIConnectionTimeoutError || error instanceof AnthropicErrors.APIConnectionTimeoutError) return { kind: 'timeout' };
  if (error instanceof OpenAIErrors.APIConnectionError || error instanceof AnthropicErrors.APIConnectionError) {
    return { kind: 'connection', cause: error.cause };
  }
  if (error instanceof OpenAIErrors.APIError && typeof error.status === 'number') {
    const words = serverWords(error.error, error.message);
    const code = typeof error.code === 'string' ? error.code : words.code;
    return { kind: 'status', status: error.status, headers: error.headers, message: words.message, ...(code ? { code } : {}) };
  }
  if (error instanceof AnthropicErrors.APIError && error.status === undefined && error.type && STREAM_ERROR_STATUS[error.type]) {
    // An `event: error` in the middle of a stream: no status of its own, the status its type has.
    const words = serverWords(error.error, error.apiMessage ?? error.message);
    return { kind: 'status', status: STREAM_ERROR_STATUS[error.type], headers: error.headers, message: words.message, code: error.type };
  }
  if (error instanceof AnthropicErrors.APIError && typeof error.status === 'number') {
    const words = serverWords(error.error, error.apiMessage ?? error.message);
    const code = error.errorCode ?? error.type ?? words.code;
    return { kind: 'status', status: error.status, headers: error.headers, message: words.message, ...(code ? { code } : {}) };
  }
  return { kind: 'other' };
}
