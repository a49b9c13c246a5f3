import { providerOf, tagEnvironment, type Environment, type ExecuteOptions } from '../environments/index.js';

/**
 * The session's view of a (possibly shared) environment: every command also gets the
 * variables the session's skills declared, read from `source` when the command starts.
 * Everything else is the underlying environment's own; the provider tag is kept.
 */
export function withSessionVariables(
  environment: Environment,
  names: () => Iterable<string>,
  source: NodeJS.ProcessEnv,
): Environment {
  const execute = (command: string, options: ExecuteOptions = {}) => {
    const extra: Record<string, string> = {};
    for (const name of names()) {
      const value = source[name];
      if (value !== undefined) extra[name] = value;
    }
    const env = Object.keys(extra).length > 0 ? { ...extra, ...options.env } : options.env;
    return environment.execute(command, env ? { ...options, env } : options);
  };
  const view = new Proxy(environment, {
    get(target, property) {
      if (property === 'execute') return execute;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const provider = providerOf(environment);
  if (provider) tagEnvironment(view, provider);
  return view;
}
