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

/** `HERMES_HOME`, else `~/.hermes`. An explicit `home` wins over both. */
export function resolveHome(home?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (home) return resolve(home);
  if (env.HERMES_HOME) return resolve(env.HERMES_HOME);
  return join(homedir(), '.hermes');
}

export function hermesPaths(home?: string, env: NodeJS.ProcessEnv = process.env): HermesPaths {
  const root = resolveHome(home, env);
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
