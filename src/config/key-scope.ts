import type { HermesConfig } from './schema.js';

/**
 * A base URL reduced to what decides where a request goes: scheme, host, port (the scheme's
 * default written out) and path (without trailing slashes). Undefined when it is not an
 * http(s) address.
 */
export function normalisedEndpoint(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.protocol}//${parsed.hostname.toLowerCase()}:${port}${path}`;
}

/** True when both URLs send requests to the same place ({@link normalisedEndpoint}). */
export function sameEndpoint(a: string, b: string): boolean {
  const left = normalisedEndpoint(a);
  return left !== undefined && left === normalisedEndpoint(b);
}

/** The host (and port, when one is written) of a URL, for messages. */
export function hostOf(url: string): string {
  try {
    return new URL(url.trim()).host || url;
  } catch {
    return url;
  }
}

/** A saved key for a request, or why none is sent. */
export interface ScopedKey {
  /** The key to send; empty when there is none or it was saved for another address. */
  key: string;
  /** Set when a key is saved but withheld: says so and what to do ("enter the key for <host>"). */
  withheld?: string;
}

/**
 * The key saved in `variable` for a request to `baseUrl`. A saved key goes only to the base
 * URL it was saved for, which is `model.base_url` while `model.api_key_env` names that
 * variable; to any other address (another host, port, scheme or path) it is withheld, so a
 * form or command that reuses the saved key cannot be pointed elsewhere to collect it.
 */
export function savedKeyFor(
  variable: string,
  baseUrl: string,
  model: Pick<HermesConfig['model'], 'base_url' | 'api_key_env'>,
  env: NodeJS.ProcessEnv,
): ScopedKey {
  const saved = env[variable] ?? '';
  if (!saved) return { key: '' };
  if (model.api_key_env === variable && sameEndpoint(model.base_url, baseUrl)) return { key: saved };
  const savedFor = model.api_key_env === variable ? `is for ${model.base_url}, not ${baseUrl}` : `was not saved for ${baseUrl}`;
  return { key: '', withheld: `no key was sent: the saved key (${variable}) ${savedFor}; enter the key for ${hostOf(baseUrl)}` };
}
