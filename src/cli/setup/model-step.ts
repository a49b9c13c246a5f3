import { defaultConfig, savedKeyFor, type HermesConfig } from '../../config/index.js';
import type { ModelApi } from '../../config/schema.js';
import { errorMessage } from '../../shared/errors.js';
import { checkModel, type ModelCheckResult } from '../model-check.js';
import type { Asker } from './ask.js';
import { MODEL_PROVIDERS, isModelProvider, type ModelProviderId } from '../../agent/model-providers.js';

/*
 * The model step of `hermes setup`: a provider, its URL, the key (kept in HERMES_HOME/.env
 * under the provider's variable), a model picked from the server's list, and one test call.
 * The providers are the web chat's settings form's (one table), so both write the same config.
 */
export { MODEL_PROVIDERS, isModelProvider, type ModelProviderId } from '../../agent/model-providers.js';

/** The model settings setup writes: config keys, and the key for .env (empty: keep what is there). */
export interface ModelChoice {
  /** model.provider: the API the endpoint speaks (absent: leave it as it is). */
  api?: ModelApi;
  baseUrl: string;
  name: string;
  apiKeyEnv: string;
  apiKey: string;
}

/** Checks a base URL as typed: an http(s) address, without a trailing slash. */
export function baseUrlProblem(url: string): string | undefined {
  if (!/^https?:\/\/\S+$/.test(url)) return `"${url}" is not an http:// or https:// address (such as http://127.0.0.1:11434/v1)`;
  try {
    new URL(url);
  } catch {
    return `"${url}" is not an address`;
  }
  return undefined;
}

/** The model ids the server lists (GET <base>/models of either API), or why it could not say. */
export async function listModels(baseUrl: string, apiKey: string, api: ModelApi = 'openai'): Promise<{ ids: string[] } | { error: string }> {
  const { listModelsOf } = await import('../../agent/providers/model-list.js');
  try {
    const { ids } = await listModelsOf({ api, baseUrl, apiKey, timeoutMs: 15_000 });
    return { ids: ids.sort() };
  } catch (error) {
    return { error: errorMessage(error) };
  }
}

/** The test call with these settings, the key given to it as the variable it will live in. */
export function testModel(config: HermesConfig, choice: ModelChoice, env: NodeJS.ProcessEnv): Promise<ModelCheckResult> {
  const withKey = choice.apiKey ? { ...env, [choice.apiKeyEnv]: choice.apiKey } : env;
  const provider = choice.api ?? config.model.provider;
  return checkModel({ ...config.model, provider, base_url: choice.baseUrl, name: choice.name, api_key_env: choice.apiKeyEnv, api_key_pool: [], fallbacks: [] }, withKey);
}

/** Asks for the model settings on a terminal; the result has passed the test call, or the person chose to keep it anyway. */
export async function askModel(ask: Asker, config: HermesConfig, env: NodeJS.ProcessEnv): Promise<ModelChoice | undefined> {
  ask.say('\n== Model ==');
  const current = config.model.name ? `${config.model.name} at ${config.model.base_url}` : 'none';
  ask.say(`Current model: ${current}`);
  const ids = Object.keys(MODEL_PROVIDERS) as ModelProviderId[];
  ids.forEach((id, index) => ask.say(`  ${index + 1}. ${MODEL_PROVIDERS[id].label} [${id}]`));
  const answer = await ask.choose('Provider (number or name, Enter skips this step)', [...ids, 'skip'], config.model.name ? 'skip' : undefined);
  if (answer === 'skip' || !isModelProvider(answer)) return undefined;
  const provider = MODEL_PROVIDERS[answer];
  let baseUrl = provider.baseUrl === 'default' ? defaultConfig().model.base_url : provider.baseUrl === 'ask' ? '' : provider.baseUrl;
  for (;;) {
    baseUrl = (await ask.text(provider.api === 'anthropic' ? 'Base URL (the API root)' : 'Base URL (the API root, usually ending in /v1)', baseUrl)).replace(/\/+$/, '');
    const problem = baseUrlProblem(baseUrl);
    if (!problem) break;
    ask.say(problem);
  }
  // The saved key goes only to the base URL it was saved for.
  const saved = savedKeyFor(provider.apiKeyEnv, baseUrl, config.model, env);
  let apiKey = await ask.secret(`API key (saved as ${provider.apiKeyEnv} in HERMES_HOME/.env${provider.needsKey ? '' : '; Enter for none'})`, saved.key !== '');
  if (!apiKey && saved.withheld) {
    ask.say(saved.withheld);
    apiKey = await ask.secret(`API key for ${baseUrl}`, false);
    if (!apiKey) {
      ask.say(`Model settings not saved: ${provider.apiKeyEnv} would send the key saved for another address to ${baseUrl} (a server that takes no key: remove ${provider.apiKeyEnv} from HERMES_HOME/.env first).`);
      return undefined;
    }
  }
  const listed = await listModels(baseUrl, apiKey || saved.key, provider.api);
  let name: string;
  if ('ids' in listed && listed.ids.length > 0) {
    const shown = listed.ids.slice(0, 40);
    shown.forEach((id, index) => ask.say(`  ${index + 1}. ${id}`));
    if (listed.ids.length > shown.length) ask.say(`  … and ${listed.ids.length - shown.length} more (type the id)`);
    const typed = await ask.text('Model (number or id)', shown.includes(config.model.name) ? config.model.name : '');
    name = /^\d+$/.test(typed) && shown[Number(typed) - 1] ? shown[Number(typed) - 1] : typed;
  } else {
    ask.say('error' in listed ? `The server did not list its models (${listed.error}).` : 'The server lists no models.');
    name = await ask.text('Model id', config.model.name);
  }
  const choice: ModelChoice = { api: provider.api, baseUrl, name, apiKeyEnv: provider.apiKeyEnv, apiKey };
  ask.say('Testing: one request with a tool…');
  const result = await testModel(config, choice, env);
  ask.say(`${result.ok ? (result.toolCalled ? 'ok' : 'warning') : 'failed'}: ${result.detail}`);
  if (result.fix) ask.say(`  → ${result.fix}`);
  if (!result.ok && !(await ask.yes('Save these settings anyway?', false))) return undefined;
  return choice;
}
