import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '../shared/errors.js';
import { readConfigText } from './safe-read.js';

/**
 * Loads `HERMES_HOME/.env` into `env` without overriding variables that are already set.
 * Returns the names it set. A missing file is not an error.
 */
export function loadDotEnv(file: string, env: Record<string, string | undefined>): string[] {
  const text = readConfigText(file);
  if (text === undefined) return [];
  const set: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}

/** Variable names `.env` may set: letters, digits and underscores, not starting with a digit. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * Values written to `.env`: printable ASCII without blanks, quotes, backslashes or `$`. An
 * API key fits; a newline (which would add a line of its own: an injection) does not.
 */
const ENV_VALUE = /^[\x21-\x7e]+$/;
const UNSAFE_IN_VALUE = /['"`\\$]/;

/** Why `value` cannot be written as `name` in `.env`, or undefined when it can. */
export function dotEnvProblem(name: string, value: string): string | undefined {
  if (!ENV_NAME.test(name)) return `"${name}" is not a variable name (letters, digits and _, not starting with a digit)`;
  if (!ENV_VALUE.test(value) || UNSAFE_IN_VALUE.test(value)) {
    return 'the value must be one line of printable characters, without spaces, quotes, backslashes or $';
  }
  return undefined;
}

/**
 * Sets `name=value` in the `.env` file, replacing the line that set it before (or adding one),
 * and keeps every other line as it was. The file is replaced whole (temp file, rename) with
 * mode 0600: it holds keys. Refuses what {@link dotEnvProblem} refuses, naming the file.
 */
export function setDotEnvValue(file: string, name: string, value: string): void {
  const problem = dotEnvProblem(name, value);
  if (problem) throw new ConfigError(`${file}: ${name}: ${problem}; nothing was written`);
  const text = readConfigText(file) ?? '';
  const line = `${name}='${value}'`;
  const sets = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`);
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const at = lines.findIndex((existing) => sets.test(existing));
  if (at >= 0) lines.splice(at, 1, line);
  else lines.push(line);
  // A later line for the same name would win over ours when the file is read.
  const kept = lines.filter((existing, index) => index === (at >= 0 ? at : lines.length - 1) || !sets.test(existing));
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, kept.join('\n') + '\n', { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/**
 * The variables the `.env` file sets, as Node reads them; a missing file sets none. A file
 * that is not a regular file is refused (ConfigError) without blocking.
 */
export function readDotEnv(file: string): Record<string, string> {
  return parseEnv(readConfigText(file) ?? '') as Record<string, string>;
}
