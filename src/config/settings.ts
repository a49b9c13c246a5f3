import type { HermesPaths } from './paths.js';
import type { HermesConfig } from './schema.js';

/**
 * The environment as the settings read it: the process's variables with HERMES_HOME/.env laid
 * under them (a variable the shell set wins). Read-only: a change comes as a new snapshot.
 */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/**
 * One typed, frozen snapshot of everything the gateway is configured with: config.yaml (with
 * its defaults and the command line's overrides), `.env` and the environment, and what is
 * derived from them once (the model's key, allow-all). Built by `loadSettings` at the edge;
 * a hot reload makes a new one (SettingsStore) instead of changing this one.
 */
export interface Settings {
  readonly config: HermesConfig;
  readonly paths: HermesPaths;
  readonly env: SettingsEnv;
  /** Problems worth telling the user that do not stop the gateway (unknown keys). */
  readonly warnings: readonly string[];
  /** `GATEWAY_ALLOW_ALL_USERS`: every user of every platform may talk to the bot. */
  readonly allowAllUsers: boolean;
  /** The model's key: the variable `model.api_key_env` names; empty when it is unset. */
  readonly apiKey: string;
}

/** The values `GATEWAY_ALLOW_ALL_USERS` (and any other yes/no variable) reads as yes. */
const YES = /^(1|true|yes|on)$/i;

/** True when a yes/no variable says yes (`1`, `true`, `yes`, `on`, any case, blanks around). */
export function variableSaysYes(value: string | undefined): boolean {
  return YES.test((value ?? '').trim());
}

/** True when `GATEWAY_ALLOW_ALL_USERS` lets every user in: the one reading of it. */
export function allowsAllUsers(env: SettingsEnv): boolean {
  return variableSaysYes(env.GATEWAY_ALLOW_ALL_USERS);
}

/** The key of the model section's `api_key_env` variable; empty when it is unset. */
export function modelKey(model: Pick<HermesConfig['model'], 'api_key_env'>, env: SettingsEnv): string {
  return env[model.api_key_env] ?? '';
}

/** Freezes `value` and everything it holds, so no holder of a snapshot can change it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/**
 * A frozen snapshot of validated parts: the config and paths are copied (the caller's objects
 * stay theirs), the environment is copied as it is now, and the derived values are read once.
 */
export function createSettings(parts: {
  config: HermesConfig;
  paths: HermesPaths;
  env: SettingsEnv;
  warnings?: readonly string[];
}): Settings {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(parts.env)) if (value !== undefined) env[name] = value;
  return deepFreeze({
    config: structuredClone(parts.config),
    paths: { ...parts.paths },
    env,
    warnings: [...(parts.warnings ?? [])],
    allowAllUsers: allowsAllUsers(env),
    apiKey: modelKey(parts.config.model, env),
  });
}
