import { createModelClient, type ModelClient } from '../agent/index.js';
import { modelKeyNames, type HermesConfig } from '../config/index.js';
import type { Logger } from '../shared/logger.js';

/**
 * A model client that follows the running configuration: `model` is read at each request (in
 * the gateway a view of the current settings snapshot, which a reload replaces), and the
 * client under it is built again when the endpoint, the key or a request setting changes, so
 * a new model applies at the next request, without a restart.
 */
export function liveModelClient(options: { model: HermesConfig['model']; logger: Logger; env?: NodeJS.ProcessEnv }): ModelClient {
  const env = options.env ?? {};
  let built: { fingerprint: string; client: ModelClient } | undefined;
  const current = (): ModelClient => {
    const settings = options.model;
    // The keys' values take part (a new key in .env); the fingerprint is never logged.
    const fingerprint = JSON.stringify([settings, modelKeyNames(settings).map((name) => env[name] ?? '')]);
    if (built?.fingerprint !== fingerprint) {
      // A plain copy of the section as it is now (a view of the settings cannot be cloned).
      const [model] = JSON.parse(fingerprint) as [HermesConfig['model']];
      built = { fingerprint, client: createModelClient({ model, logger: options.logger, env }) };
    }
    return built.client;
  };
  return {
    get model() {
      return options.model.name;
    },
    complete: (request) => current().complete(request),
    route: () => built?.client.route?.(),
  };
}
