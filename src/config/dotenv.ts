import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * Loads `HERMES_HOME/.env` into `env` without overriding variables that are already set.
 * Returns the names it set. A missing file is not an error.
 */
export function loadDotEnv(file: string, env: NodeJS.ProcessEnv = process.env): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const set: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
