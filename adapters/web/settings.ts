import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { dotEnvProblem } from '../../src/config/dotenv.js';
import type { ScopedKey } from '../../src/config/key-scope.js';
import { errorMessage } from '../../src/shared/errors.js';
import { listModels, probeError, testCall, type Endpoint } from './model-probe.js';
import { pairingRoutes } from './pairing-routes.js';
import type { PairingStore } from '../../src/pairing/index.js';
import { MODEL_PROVIDERS as PROVIDERS, isModelProvider, type ModelProviderId as ProviderId } from '../../src/agent/model-providers.js';

/** The providers the form offers, and the variable each keeps its key in: setup's table. */
export { MODEL_PROVIDERS as PROVIDERS, type ModelProviderId as ProviderId } from '../../src/agent/model-providers.js';

/** The model settings as the form shows them; the key itself never leaves the gateway. */
export interface SettingsView {
  provider: ProviderId;
  baseUrl: string;
  model: string;
  apiKeyEnv: string;
  /** True when the key variable has a value (so the key field may stay empty). */
  keySet: boolean;
  /** False when the web chat has no login (`auth: none`): the page cannot change settings then. */
  canSave: boolean;
}

/** A form's settings, checked. */
export interface ModelSettings {
  provider: ProviderId;
  baseUrl: string;
  model: string;
  /** Empty keeps the key already saved. */
  apiKey: string;
}

export interface SettingsDeps {
  /** True when requests carry the login token: only then may the page change settings. */
  ownerOnly: boolean;
  current: () => SettingsView;
  /**
   * The saved key of a provider's variable for a look-up at `baseUrl` with the key field left
   * empty: only when it was saved for that base URL; otherwise none, and why.
   */
  savedKey: (provider: ProviderId, baseUrl: string) => ScopedKey;
  /** Writes the settings (key to .env, the rest to config.yaml) and applies them at once. */
  save: (settings: ModelSettings) => { needsRestart: string[] };
  /** The pairing store (`dm_policy: pairing`): the page lists who waits and approves or refuses them. */
  pairing?: Pick<PairingStore, 'pending' | 'approve' | 'refuse'>;
}

type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** Reads and checks the form's fields; `needModel` for the test call and the save. */
function readSettings(body: unknown, needModel: boolean): Checked<ModelSettings> {
  if (typeof body !== 'object' || body === null) return { ok: false, error: 'send {"provider", "baseUrl", "apiKey", "model"} as JSON' };
  const { provider, baseUrl, apiKey = '', model = '' } = body as Record<string, unknown>;
  if (!isModelProvider(provider)) return { ok: false, error: `provider must be one of ${Object.keys(PROVIDERS).join(', ')}` };
  if (typeof baseUrl !== 'string' || !/^https?:\/\/[^\s]+$/.test(baseUrl.trim())) {
    return { ok: false, error: 'Base URL must be an http:// or https:// address, such as http://127.0.0.1:11434/v1' };
  }
  try {
    new URL(baseUrl.trim());
  } catch {
    return { ok: false, error: `Base URL "${baseUrl}" is not an address` };
  }
  if (typeof apiKey !== 'string') return { ok: false, error: 'API key must be text' };
  // A key becomes a line of .env: a newline in it would add lines of its own.
  if (apiKey !== '') {
    const problem = dotEnvProblem(PROVIDERS[provider].apiKeyEnv, apiKey);
    if (problem) return { ok: false, error: `API key: ${problem}` };
  }
  if (typeof model !== 'string' || /[\r\n]/.test(model) || model.length > 200) return { ok: false, error: 'Model must be one line of text' };
  if (needModel && !model.trim()) return { ok: false, error: 'pick a Model from the list first' };
  return { ok: true, value: { provider, baseUrl: baseUrl.trim().replace(/\/+$/, ''), apiKey, model: model.trim() } };
}

/**
 * The settings form's API: `GET /api/settings`, and with the login only, `POST
 * /api/settings/models` (the endpoint's model list), `POST /api/settings/test` (one short
 * request) and `POST /api/settings` (save and apply). The key goes in, never out: no answer
 * and no log line carries it, and a server's error text has it cut out. With the key field
 * empty the saved key is sent only to the base URL it was saved for; to another one none is
 * sent and the answer says so, and a save there is refused until the key is entered.
 */
export function settingsRoutes(deps: SettingsDeps): Hono {
  const app = new Hono();
  const limit = bodyLimit({ maxSize: 16 * 1024 });

  // `pairing`: the page has a pairing panel (a store, and the login that makes one the owner).
  app.get('/', (c) => c.json({ ...deps.current(), ...(deps.pairing && deps.ownerOnly ? { pairing: true } : {}) }));

  // The login token is what makes the person on the other side this machine's owner; without
  // it (`auth: none`) any user of the machine could rewrite the model settings and keys.
  app.use('/*', async (c, next) => {
    if (c.req.method === 'GET') return next();
    if (!deps.ownerOnly) {
      return c.json(
        { error: 'The web chat has no login (platforms.web.auth: none), so it does not change settings: set the model in config.yaml, or turn the login back on.' },
        403,
      );
    }
    return next();
  });
  // Waiting codes are the owner's business only: without the login, not even the list is shown.
  if (deps.pairing && deps.ownerOnly) app.route('/pairing', pairingRoutes(deps.pairing));

  /** The endpoint to ask: the typed key, else the saved one only where it was saved for. */
  const endpointOf = (settings: ModelSettings): Endpoint & { withheld?: string } => {
    const api = PROVIDERS[settings.provider].api;
    if (settings.apiKey) return { api, baseUrl: settings.baseUrl, apiKey: settings.apiKey };
    const saved = deps.savedKey(settings.provider, settings.baseUrl);
    return { api, baseUrl: settings.baseUrl, apiKey: saved.key, ...(saved.withheld ? { withheld: saved.withheld } : {}) };
  };
  /** A failure's text, and when the saved key was withheld, that it was (the likely reason). */
  const failure = (error: unknown, endpoint: Endpoint & { withheld?: string }) =>
    `${probeError(error, endpoint)}${endpoint.withheld ? ` (${endpoint.withheld})` : ''}`;
  const noted = (endpoint: { withheld?: string }) => (endpoint.withheld ? { note: endpoint.withheld } : {});

  const read = async (c: Context, needModel: boolean): Promise<Checked<ModelSettings>> => {
    const body = await c.req.json<unknown>().catch(() => undefined);
    return readSettings(body, needModel);
  };

  app.post('/models', limit, async (c) => {
    const settings = await read(c, false);
    if (!settings.ok) return c.json({ error: settings.error }, 400);
    const endpoint = endpointOf(settings.value);
    try {
      return c.json({ models: await listModels(endpoint), ...noted(endpoint) });
    } catch (error) {
      return c.json({ error: `${endpoint.baseUrl}/models did not answer with a model list: ${failure(error, endpoint)}` }, 502);
    }
  });

  app.post('/test', limit, async (c) => {
    const settings = await read(c, true);
    if (!settings.ok) return c.json({ error: settings.error }, 400);
    const endpoint = endpointOf(settings.value);
    try {
      return c.json({ reply: await testCall(endpoint, settings.value.model), ...noted(endpoint) });
    } catch (error) {
      return c.json({ error: `The test call to ${settings.value.model} failed: ${failure(error, endpoint)}` }, 502);
    }
  });

  app.post('/', limit, async (c) => {
    const settings = await read(c, true);
    if (!settings.ok) return c.json({ error: settings.error }, 400);
    const endpoint = endpointOf(settings.value);
    // Saved as it is, the variable would keep the other address's key and send it here.
    if (endpoint.withheld) {
      return c.json({ error: `Not saved: ${endpoint.withheld} (a server that takes no key: remove the variable from .env first)` }, 400);
    }
    let reply: string;
    try {
      reply = await testCall(endpoint, settings.value.model);
    } catch (error) {
      return c.json({ error: `Not saved: the test call to ${settings.value.model} failed: ${probeError(error, endpoint)}` }, 502);
    }
    try {
      const { needsRestart } = deps.save(settings.value);
      return c.json({ saved: true, reply, needsRestart, settings: deps.current() });
    } catch (error) {
      return c.json({ error: `Not saved: ${probeError(errorMessage(error), endpoint)}` }, 500);
    }
  });
  return app;
}
