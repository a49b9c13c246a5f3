import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where hermes keeps its state. Every path the gateway writes to comes from here. */
export interface HermesPaths {
  home: string;
  config: string;
  env: string;
  logs: string;
  logFile: string;
  cache: string;
  execCache: string;
  plugins: string;
  skills: string;
  stateDb: string;
  sandboxes: string;
}

/** The variables the paths depend on: HERMES_HOME and HERMES_CONFIG. */
type PathVariables = Readonly<Record<string, string | undefined>>;

/**
 * `HERMES_HOME`, else `~/.hermes`. An explicit `home` wins over both; without one, say where
 * the variables come from (the settings' environment, `readEnvironment()` at the edge).
 */
export function resolveHome(home: string): string;
export function resolveHome(home: string | undefined, env: PathVariables): string;
export function resolveHome(home?: string, env: PathVariables = {}): string {
  if (home) return resolve(home);
  if (env.HERMES_HOME) return resolve(env.HERMES_HOME);
  return join(homedir(), '.hermes');
}

/** Every path under HERMES_HOME; `home` and `env` as for {@link resolveHome}. */
export function hermesPaths(home: string): HermesPaths;
export function hermesPaths(home: string | undefined, env: PathVariables): HermesPaths;
export function hermesPaths(home?: string, env: PathVariables = {}): HermesPaths {
  const root = home ? resolveHome(home) : resolveHome(undefined, env);
  const logs = join(root, 'logs');
  const cache = join(root, 'cache');
  return {
    home: root,
    config: env.HERMES_CONFIG && !home ? resolve(env.HERMES_CONFIG) : join(root, 'config.yaml'),
    env: join(root, '.env'),
    logs,
    logFile: join(logs, 'agent.log'),
    cache,
    execCache: join(cache, 'exec'),
    plugins: join(root, 'plugins'),
    skills: join(root, 'skills'),
    stateDb: join(root, 'state.db'),
    sandboxes: join(root, 'sandboxes'),
  };
}
