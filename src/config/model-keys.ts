import type { HermesConfig } from './schema.js';

/** Every variable the model section takes a key from: the pool (or `api_key_env`) and each fallback's. */
export function modelKeyNames(model: Pick<HermesConfig['model'], 'api_key_env' | 'api_key_pool' | 'fallbacks'>): string[] {
  const primary = model.api_key_pool.length > 0 ? model.api_key_pool : [model.api_key_env];
  return [...new Set([...primary, ...model.fallbacks.map((fallback) => fallback.api_key_env)].filter(Boolean))];
}

/** Whether a base URL is this machine (a local server takes no key). */
function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

const fix = (name: string) => `put ${name}=… in HERMES_HOME/.env (or the environment)`;

/**
 * A key variable the model section names that is not set, said with the key path and the fix;
 * undefined when every one it needs is set. Needed: the Anthropic API's key, every key of a
 * pool, and each fallback's (unless it is a server on this machine). Nothing is needed while
 * no model is configured (the web chat's form sets one).
 */
export function modelKeyProblem(model: HermesConfig['model'], env: NodeJS.ProcessEnv): string | undefined {
  if (!model.name) return undefined;
  const pool = model.api_key_pool.length > 0 ? model.api_key_pool : [model.api_key_env];
  const needsPrimary = model.provider === 'anthropic' || model.api_key_pool.length > 1;
  if (needsPrimary) {
    for (const name of pool) {
      if (!name) return 'model.api_key_env: empty; name the variable that holds the key';
      if (!env[name]) return `model.api_key_env: ${name} is not set (${model.provider === 'anthropic' ? 'the Anthropic API needs a key' : 'every key of the pool must be set'}); ${fix(name)}`;
    }
  }
  for (const [index, fallback] of model.fallbacks.entries()) {
    if (isLoopback(fallback.base_url)) continue;
    if (!fallback.api_key_env) return `model.fallbacks[${index}].api_key_env: empty; name the variable that holds ${fallback.model}'s key`;
    if (!env[fallback.api_key_env]) return `model.fallbacks[${index}].api_key_env: ${fallback.api_key_env} is not set (the key of fallback ${fallback.model}); ${fix(fallback.api_key_env)}`;
  }
  return undefined;
}
