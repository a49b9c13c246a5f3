import { listModelsOf } from '../providers/model-list.js';
import type { HermesConfig } from '../../config/schema.js';
import type { Logger } from '../../shared/logger.js';

/** The window assumed when neither the settings, the endpoint nor an error has said one. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** How long a failed look-up of the endpoint's model list is not tried again. */
const RETRY_LIST_MS = 10 * 60_000;
const LIST_TIMEOUT_MS = 10_000;

export interface ModelList {
  /** Model ids the endpoint lists. */
  ids: string[];
  /** Context windows it states, by id. */
  windows: Map<string, number>;
}

export interface ContextWindowsOptions {
  model: HermesConfig['model'];
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** Replaces the look-up of `GET <base_url>/models` (tests). */
  listModels?: (signal: AbortSignal) => Promise<ModelList>;
}

/**
 * How many tokens each model takes per request: `model.context_window` for `model.name`,
 * else what the endpoint's model list says, else what a context-length error said, else
 * {@link DEFAULT_CONTEXT_WINDOW}.
 */
export class ContextWindows {
  private readonly learned = new Map<string, number>();
  private list: Promise<ModelList | undefined> | undefined;
  private listFailedAt = 0;

  constructor(private readonly options: ContextWindowsOptions) {}

  /** The window for `model` and where it came from. */
  async get(model: string): Promise<{ tokens: number; source: 'config' | 'endpoint' | 'error' | 'default' }> {
    const configured = this.options.model.context_window;
    if (configured !== null && model === this.options.model.name) return { tokens: configured, source: 'config' };
    const learned = this.learned.get(model);
    if (learned !== undefined) return { tokens: learned, source: 'error' };
    const listed = (await this.models())?.windows.get(model);
    if (listed !== undefined) return { tokens: listed, source: 'endpoint' };
    return { tokens: configured ?? DEFAULT_CONTEXT_WINDOW, source: configured !== null ? 'config' : 'default' };
  }

  /** Remembers the window a context-length error named (or a smaller guess when it named none). */
  learn(model: string, tokens: number): void {
    const known = this.learned.get(model);
    this.learned.set(model, known === undefined ? tokens : Math.min(known, tokens));
    this.options.logger.info({ model, tokens }, 'context window learned from the model API');
  }

  /** The endpoint's model list, looked up once (again after a while when it failed); undefined when it cannot be had. */
  models(): Promise<ModelList | undefined> {
    if (this.list && !(this.listFailedAt && Date.now() - this.listFailedAt > RETRY_LIST_MS)) return this.list;
    this.listFailedAt = 0;
    const signal = AbortSignal.timeout(LIST_TIMEOUT_MS);
    this.list = (this.options.listModels ?? ((s) => this.fetchList(s)))(signal).catch((error: unknown) => {
      this.listFailedAt = Date.now();
      this.options.logger.debug({ err: error }, 'the model endpoint gave no model list; context windows come from settings or errors');
      return undefined;
    });
    return this.list;
  }

  private fetchList(signal: AbortSignal): Promise<ModelList> {
    const settings = this.options.model;
    const env = this.options.env ?? {};
    return listModelsOf({ api: settings.provider, baseUrl: settings.base_url, apiKey: env[settings.api_key_env], timeoutMs: LIST_TIMEOUT_MS, signal });
  }
}
