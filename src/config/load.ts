import { parse as parseYaml, YAMLParseError } from 'yaml';
import { ConfigError } from '../shared/errors.js';
import { currentConfigSchema, readCodeExecutionMode, type ConfigOverrides, type HermesConfig } from './schema.js';
import { isKnownTimezone } from '../environments/child-env.js';
import { formatIssue, unknownKeys } from './issues.js';
import type { HermesPaths } from './paths.js';
import type { SettingsEnv } from './settings.js';
import { readConfigText } from './safe-read.js';

export interface LoadedConfig {
  config: HermesConfig;
  paths: HermesPaths;
  /** Problems worth telling the user that do not stop the gateway (unknown keys). */
  warnings: readonly string[];
  /** The environment read with it (a Settings snapshot's); absent in a configuration built by hand. */
  env?: SettingsEnv;
}

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Objects merge key by key; anything else in `over` replaces what is in `base`. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlain(base) || !isPlain(over)) return over === undefined ? base : over;
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = deepMerge(base[key], value);
  return out;
}

/**
 * Reads a YAML file into a plain object; a missing file is an empty one. A file that is not
 * a regular file (a FIFO, a socket, a directory) is refused without blocking.
 */
export function readYamlFile(file: string): Plain {
  const text = readConfigText(file);
  return text === undefined ? {} : parseYamlText(text, file);
}

/** Parses config.yaml's text into a plain object; `file` names it in errors. */
export function parseYamlText(text: string, file: string): Plain {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` line ${error.linePos[0].line}` : '';
    throw new ConfigError(`${file}:${where} is not valid YAML: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
  if (data === null || data === undefined) return {};
  if (!isPlain(data)) throw new ConfigError(`${file}: expected a mapping of keys at the top level`);
  return data;
}

function withoutKeys(data: unknown, dotted: string[]): unknown {
  const copy = structuredClone(data) as Plain;
  for (const key of dotted) {
    const parts = key.split('.');
    let node: unknown = copy;
    for (const part of parts.slice(0, -1)) node = isPlain(node) ? node[part] : undefined;
    if (isPlain(node)) delete node[parts[parts.length - 1]];
  }
  return copy;
}

/** Warnings for values read leniently, as hermes-agent reads them: code_execution.mode and timezone. */
function readValues(data: unknown, source: string): string[] {
  const warnings: string[] = [];
  const section = isPlain(data) ? data.code_execution : undefined;
  const mode = readCodeExecutionMode(isPlain(section) ? section.mode : undefined);
  if (mode.warning) warnings.push(`${source}: ${mode.warning}`);
  const timezone = isPlain(data) ? data.timezone : undefined;
  if (typeof timezone === 'string' && timezone.trim() && !isKnownTimezone(timezone.trim())) {
    warnings.push(`${source}: timezone: "${timezone.trim()}" is not a known IANA zone name (such as Europe/Berlin); children keep the server's TZ`);
  }
  return warnings;
}

/**
 * Validates raw config data. Invalid values throw a ConfigError naming the source, the key
 * path and the reason; unknown keys are returned as warnings and otherwise ignored.
 */
export function validateConfig(data: unknown, source: string): { config: HermesConfig; warnings: string[] } {
  const read = readValues(data, source);
  const first = currentConfigSchema().safeParse(data, { reportInput: true });
  if (first.success) return { config: first.data, warnings: read };
  const unknown = unknownKeys(first.error.issues);
  const problems = first.error.issues.filter((issue) => issue.code !== 'unrecognized_keys');
  if (problems.length > 0) {
    throw new ConfigError(problems.map((issue) => `${source}: ${formatIssue(issue)}`).join('\n'));
  }
  const second = currentConfigSchema().safeParse(withoutKeys(data, unknown), { reportInput: true });
  if (!second.success) {
    throw new ConfigError(second.error.issues.map((issue) => `${source}: ${formatIssue(issue)}`).join('\n'));
  }
  return {
    config: second.data,
    warnings: [...read, ...unknown.map((key) => `${source}: unknown key "${key}" is ignored (see config/default.yaml for the keys)`)],
  };
}

/** The defaults alone, as the schema gives them. */
export function defaultConfig(): HermesConfig {
  return currentConfigSchema().parse({});
}

/**
 * `config` with `overrides` laid over it, validated: the one way code that was handed a
 * loaded configuration (the agent, the executor) adds settings of its own. Without overrides
 * it is `config` itself.
 */
export function withOverrides(config: HermesConfig, overrides: ConfigOverrides | undefined, source: string): HermesConfig {
  if (overrides === undefined) return config;
  return validateConfig(deepMerge(config, overrides), source).config;
}

/**
 * The file's settings; undefined when it is empty or blank (a save on its way), which a
 * running gateway does not take for "all defaults". A missing file is the defaults. The one
 * reading of config.yaml after the start: the watch and `/reload-mcp`.
 */
export function readConfigFile(file: string): HermesConfig | undefined {
  const text = readConfigText(file);
  if (text !== undefined && text.trim() === '') return undefined;
  return validateConfig(text === undefined ? {} : parseYamlText(text, file), file).config;
}
