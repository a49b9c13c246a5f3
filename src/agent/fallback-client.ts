import type { HermesConfig } from '../config/schema.js';
import { ModelAbortedError, ModelError } from './model-errors.js';
import { readFailure } from './model-failure.js';
import { rateLimitResetAt } from './rate-limit-reset.js';
import type { ModelClient, ModelClientOptions, ModelReply, ModelRequest, ModelRoute } from './model-client.js';

/** How long an endpoint is passed over after a failure that names no reset (a 5xx, a timeout, a refused connection). */
export const DEFAULT_REST_MS = 60_000;

/** Whether a failure moves the request to the next endpoint: 429, 5xx, a timeout or a refused connection. */
export function movesToFallback(error: unknown): boolean {
  const failure = readFailure(error instanceof ModelError ? error.cause : error);
  if (failure.kind === 'timeout' || failure.kind === 'connection') return true;
  return failure.kind === 'status' && (failure.status === 429 || failure.status >= 500);
}

/** The failure in a few words for the log and /status. */
function why(error: unknown): string {
  const failure = readFailure(error instanceof ModelError ? error.cause : error);
  switch (failure.kind) {
    case 'timeout':
      return 'timed out';
    case 'connection':
      return 'refused the connection';
    case 'status':
      return failure.status === 429 ? 'was rate-limited (429)' : `failed with ${failure.status}`;
    default:
      return 'failed';
  }
}

interface Entry {
  settings: HermesConfig['model'];
  client: ModelClient;
  /** Passed over until then (ms since the epoch). */
  restingUntil: number;
  /** Why it rests. */
  reason?: string;
}

/** A fallback entry as a model section of its own: the primary's request settings, its own endpoint, model and key. */
function entrySettings(primary: HermesConfig['model'], fallback: HermesConfig['model']['fallbacks'][number]): HermesConfig['model'] {
  return {
    ...primary,
    provider: fallback.provider,
    base_url: fallback.base_url,
    name: fallback.model,
    api_key_env: fallback.api_key_env,
    api_key_pool: [],
    fallbacks: [],
    context_window: null,
    pricing: null,
  };
}

type MakeEndpoint = (options: ModelClientOptions & { handsOver?: boolean }) => ModelClient;

/**
 * The primary endpoint with `model.fallbacks` behind it. A request that fails with 429, 5xx, a
 * timeout or a refused connection goes to the next entry at once; the entry that failed rests
 * until its rate-limit reset (`retry-after`, the reset headers; else {@link DEFAULT_REST_MS}),
 * so the following requests go straight to the fallback and the primary is asked again once
 * its reset has passed. The last entry retries as a lone endpoint would.
 */
export function fallbackClient(options: ModelClientOptions, makeEndpoint: MakeEndpoint): ModelClient {
  const primary = options.model;
  const now = options.now ?? Date.now;
  const logger = options.logger;
  const all = [primary, ...primary.fallbacks.map((fallback) => entrySettings(primary, fallback))];
  const entries: Entry[] = all.map((settings, index) => ({
    settings,
    client: makeEndpoint({ ...options, model: settings, handsOver: index < all.length - 1 }),
    restingUntil: 0,
  }));
  let last: ModelRoute | undefined;

  const label = (index: number) => (index === 0 ? `the primary ${entries[0].settings.name}` : `fallback ${index} (${entries[index].settings.name})`);

  /** The entries to try now, in order: those not resting; when all rest, the one whose rest ends first. */
  const order = (): number[] => {
    const at = now();
    const ready = entries.map((_, index) => index).filter((index) => entries[index].restingUntil <= at);
    if (ready.length > 0) return ready;
    return entries.map((_, index) => index).sort((a, b) => entries[a].restingUntil - entries[b].restingUntil);
  };

  return {
    get model() {
      return primary.name;
    },
    route: () => last,
    async complete(request: ModelRequest): Promise<ModelReply> {
      const tries = order();
      const passed: string[] = [];
      // Entries passed over because they still rest.
      for (let index = 0; index < tries[0]; index++) {
        const entry = entries[index];
        passed.push(`${label(index)} ${entry.reason ?? 'failed'}; resting until ${new Date(entry.restingUntil).toISOString()}`);
      }
      for (const [position, index] of tries.entries()) {
        const entry = entries[index];
        const isLast = position === tries.length - 1;
        try {
          // A thread's /model is the primary's model; a fallback asks for its own.
          const reply = await entry.client.complete(index === 0 ? request : { ...request, model: entry.settings.name });
          if (index === 0) entry.reason = undefined;
          const reason = passed.length > 0 ? passed.join('; ') : undefined;
          if (index !== 0 && (last?.entry !== index || last.reason !== reason)) logger.warn({ model: entry.settings.name, fallback: index }, `model answered by ${label(index)}: ${reason ?? ''}`);
          last = { model: request.model && index === 0 ? request.model : entry.settings.name, provider: entry.settings.provider, entry: index, ...(reason ? { reason } : {}) };
          return reply;
        } catch (error) {
          if (error instanceof ModelAbortedError || isLast || !movesToFallback(error)) throw error;
          const at = now();
          const cause = error instanceof ModelError ? error.cause : error;
          const failure = readFailure(cause);
          entry.restingUntil = (failure.kind === 'status' ? rateLimitResetAt(failure.headers, at) : undefined) ?? at + DEFAULT_REST_MS;
          entry.reason = why(error);
          const until = new Date(entry.restingUntil).toISOString();
          passed.push(`${label(index)} ${entry.reason}; resting until ${until}`);
          logger.warn({ model: entry.settings.name, entry: index, restsUntil: until }, `${label(index)} ${entry.reason}; the request moves to the next entry of model.fallbacks`);
          request.onRetry?.();
        }
      }
      // Not reached: the last entry's failure is thrown above.
      throw new ModelError('MODEL_FAILED', 'No model endpoint answered.');
    },
  };
}
