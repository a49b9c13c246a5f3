import { writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { Document, parseDocument, parse as parseYaml, isMap } from 'yaml';
import { ConfigError } from '../shared/errors.js';
import { validateConfig } from './load.js';
import { readConfigText } from './safe-read.js';
import type { HermesConfig } from './schema.js';

/** Reads `a.b.c` out of a loaded configuration; undefined when there is no such key. */
export function getConfigValue(config: HermesConfig, key: string): unknown {
  let node: unknown = config;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !(part in node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** A value typed on the command line, read as YAML: `300` is a number, `[a, b]` a list. */
export function parseCliValue(raw: string): unknown {
  try {
    return parseYaml(raw);
  } catch {
    return raw;
  }
}

/**
 * Sets `key` to `value` in the YAML file, keeping its comments and key order. The whole
 * result is validated first; nothing is written when it is invalid or the key is unknown.
 */
export function setConfigValue(
  file: string,
  key: string,
  value: unknown,
  check?: (config: HermesConfig) => void,
): HermesConfig {
  return setConfigValues(file, { [key]: value }, check);
}

/**
 * Sets several keys in one write (the web chat's settings: base URL, model and key variable
 * together), keeping comments and key order; all or nothing, as {@link setConfigValue}.
 */
export function setConfigValues(
  file: string,
  values: Record<string, unknown>,
  check?: (config: HermesConfig) => void,
): HermesConfig {
  const text = readConfigText(file) ?? '';
  const doc = text.trim() === '' ? new Document({}) : parseDocument(text);
  if (doc.errors.length > 0) throw new ConfigError(`${file}: is not valid YAML: ${doc.errors[0].message}`);
  if (!isMap(doc.contents)) throw new ConfigError(`${file}: expected a mapping of keys at the top level`);
  for (const [key, value] of Object.entries(values)) doc.setIn(key.split('.'), value);
  const { config, warnings } = validateConfig(doc.toJS(), file);
  for (const key of Object.keys(values)) {
    if (warnings.some((warning) => namesUnknownKey(warning, key))) {
      throw new ConfigError(`${file}: ${key}: unknown key; nothing was written (see config/default.yaml for the keys)`);
    }
  }
  check?.(config);
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, doc.toString(), { mode: 0o600 });
  renameSync(temp, file);
  return config;
}

/** True when the warning is about `key` itself or about one of its parents. */
function namesUnknownKey(warning: string, key: string): boolean {
  const match = /unknown key "([^"]+)"/.exec(warning);
  return match !== null && (key === match[1] || key.startsWith(match[1] + '.'));
}
