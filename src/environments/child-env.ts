import type { Logger } from '../shared/logger.js';

/** Parts of a name that mark a variable as secret. */
const SECRET_MARKERS = [
  'KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'CREDENTIAL', 'PASSWD', 'AUTH',
  'DSN', 'WEBHOOK', 'BEARER', 'APIKEY', 'CREDS',
] as const;

const SAFE_NAMES = new Set([
  'PATH', 'HOME', 'USER', 'LANG', 'TERM', 'TMPDIR', 'TMP', 'TEMP', 'SHELL', 'LOGNAME',
  'PYTHONPATH', 'VIRTUAL_ENV', 'TZ',
]);
const SAFE_PREFIXES = ['LC_', 'XDG_', 'CONDA'] as const;

/** The only HERMES_* variables a child sees; the rest could carry endpoints or secrets. */
export const HERMES_ALLOWED = new Set(['HERMES_HOME', 'HERMES_PROFILE', 'HERMES_CONFIG', 'HERMES_ENV']);

/**
 * The child-environment policy's one list of names no child ever gets: every registered
 * backend's `stripEnvKeys`, fed by ProviderRegistry.register. Held here, once, rather than
 * passed down to every caller, so no caller can forget it: buildChildEnv and withoutStripped
 * remove them always, even when a name is listed in `terminal.env_passthrough`.
 */
const providerStripped = new Set<string>();

/** Adds names every child environment loses from now on (ProviderRegistry calls it). */
export function addStrippedEnvKeys(names: Iterable<string>): void {
  for (const name of names) providerStripped.add(name);
}

/** The names added with addStrippedEnvKeys so far. */
export function strippedEnvKeys(): ReadonlySet<string> {
  return providerStripped;
}

/**
 * The configured timezone (config.yaml's `timezone`, as hermes-agent names it), set by the
 * config loader. Every child gets it as TZ; `HERMES_TIMEZONE` in the source environment
 * overrides it, as in hermes-agent. A name the system does not know sets no TZ.
 */
let configuredTimezone = '';

/** Sets the timezone children get as TZ (loadConfig calls it with config.yaml's `timezone`). */
export function setChildTimezone(name: string | null | undefined): void {
  configuredTimezone = (name ?? '').trim();
}

/** True for an IANA zone name such as Europe/Berlin or UTC that this system knows. */
export function isKnownTimezone(name: string): boolean {
  if (!name || /[\s\0]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The TZ children get: HERMES_TIMEZONE, else the configured timezone, when it is a known zone. */
export function childTimezone(source: NodeJS.ProcessEnv = childSource()): string | undefined {
  const override = (source.HERMES_TIMEZONE ?? '').trim();
  const name = override || configuredTimezone;
  return isKnownTimezone(name) ? name : undefined;
}

/** What children choose from unless told otherwise: the gateway process's own environment. */
export function childSource(): NodeJS.ProcessEnv {
  return process.env;
}

/**
 * The folders on the gateway's own PATH, which children inherit: where a program a child runs
 * is looked for (findExecutable, the engine cache, the sandbox's interpreter view).
 */
export function hostSearchPath(): string | undefined {
  return process.env.PATH;
}

/** The active virtualenv and conda prefixes of the gateway's environment, which children inherit. */
export function hostPythonPrefixes(): string[] {
  return [process.env.VIRTUAL_ENV, process.env.CONDA_PREFIX].filter((prefix): prefix is string => Boolean(prefix));
}

export function looksSecret(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_MARKERS.some((marker) => upper.includes(marker));
}

function isSafe(name: string): boolean {
  return SAFE_NAMES.has(name) || SAFE_PREFIXES.some((prefix) => name.startsWith(prefix));
}

export interface ChildEnvOptions {
  /** The variables to choose from; defaults to process.env. */
  source?: NodeJS.ProcessEnv;
  /** Names the user passed through on purpose (`terminal.env_passthrough`, skills). */
  passthrough?: Iterable<string>;
  /** Added last: the RPC socket, the token, PYTHON* settings. */
  extra?: Record<string, string>;
  logger?: Logger;
  /** For the log line: who asked (`execute_code`, `terminal`). */
  label?: string;
}

/**
 * The environment of every child process the gateway starts: secrets out, a small safe
 * set in, names passed through by the user, and nothing a provider strips.
 */
export function buildChildEnv(options: ChildEnvOptions = {}): Record<string, string> {
  const source = options.source ?? childSource();
  const passthrough = new Set(options.passthrough ?? []);
  const strip = providerStripped;
  const out: Record<string, string> = {};
  const droppedHermes: string[] = [];
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || strip.has(name)) continue;
    if (passthrough.has(name)) {
      out[name] = value;
    } else if (name.startsWith('HERMES_')) {
      if (HERMES_ALLOWED.has(name)) out[name] = value;
      else droppedHermes.push(name);
    } else if (!looksSecret(name) && isSafe(name)) {
      out[name] = value;
    }
  }
  if (droppedHermes.length > 0) {
    options.logger?.debug(
      { dropped: droppedHermes.sort() },
      `${options.label ?? 'execute_code'}: dropped ${droppedHermes.length} non-allowlisted HERMES_* var(s): ` +
        `${droppedHermes.join(', ')} (list them in terminal.env_passthrough to pass them)`,
    );
  }
  const timezone = childTimezone(source);
  if (timezone && !passthrough.has('TZ')) out.TZ = timezone;
  for (const [name, value] of Object.entries(options.extra ?? {})) {
    if (!strip.has(name)) out[name] = value;
  }
  return out;
}
