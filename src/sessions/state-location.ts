import type { HermesConfig, HermesPaths } from '../config/index.js';
import { addStrippedEnvKeys } from '../environments/child-env.js';
import { ConfigError } from '../shared/errors.js';

/** Where a PostgreSQL state database is, and which key or variable named it (for messages). */
export interface PostgresLocation {
  postgres: string;
  from: string;
}

/** Where the state (sessions, outbox, jobs) is: a SQLite file (`:memory:` for a private one) or a PostgreSQL database. */
export type StateLocation = string | PostgresLocation;

/** The variables a PostgreSQL address may come from, in the order they are tried after `sessions.postgres_url`. */
export const POSTGRES_URL_VARIABLES = ['HERMES_POSTGRES_URL', 'DATABASE_URL'] as const;

/**
 * The configured state store: `sessions.store: sqlite` is HERMES_HOME/state.db; `postgres` is
 * `sessions.postgres_url`, else HERMES_POSTGRES_URL or DATABASE_URL from the environment
 * (HERMES_HOME/.env is loaded into it), since the address may carry a password.
 */
export function stateLocationFrom(config: HermesConfig, paths: HermesPaths, env: NodeJS.ProcessEnv): StateLocation {
  if (config.sessions.store === 'sqlite') return paths.stateDb;
  // The address holds the database's password: no child process gets these, passed through or not.
  addStrippedEnvKeys(POSTGRES_URL_VARIABLES);
  let url = config.sessions.postgres_url.trim();
  let from = 'sessions.postgres_url';
  for (const name of POSTGRES_URL_VARIABLES) {
    if (url) break;
    url = env[name]?.trim() ?? '';
    from = name;
  }
  if (!url) {
    throw new ConfigError(
      `sessions.store is postgres but no PostgreSQL address is set: set sessions.postgres_url, or ${POSTGRES_URL_VARIABLES.join(' or ')} (in HERMES_HOME/.env)`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${from} is not a URL: expected postgres://user:password@host:port/database`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigError(`${from} must start with postgres:// or postgresql://, got ${parsed.protocol}//`);
  }
  return { postgres: url, from };
}
