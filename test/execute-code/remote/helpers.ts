import type { Environment } from '../../../src/environments/index.js';

/**
 * `env` without its stream (`openStream`): what a backend offering only `execute` looks like,
 * so execute_code takes the file transport. Everything else is `env`'s own (its command lines too).
 */
export function filesOnly<E extends Environment>(env: E): E {
  return Object.create(env, { openStream: { value: undefined } }) as E;
}
