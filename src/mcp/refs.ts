/** `${NAME}` inside a header or env value: the value of NAME from .env or the environment. */
const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces every `${NAME}` in `values` with NAME's value in `env` (where HERMES_HOME/.env
 * was loaded). A name that is not set throws, naming the key, so the server is reported
 * as failing rather than started with an empty token.
 */
export function expandRefs(values: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    out[key] = value.replace(REF, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) {
        throw new Error(`${where}.${key} names \${${name}}, which is set neither in HERMES_HOME/.env nor in the environment; set it there`);
      }
      return found;
    });
  }
  return out;
}
