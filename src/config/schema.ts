import { z } from 'zod';
import { bool, byteSize, fraction, ids, MAX_SECONDS, names, nonNegativeInt, oneOf, port, positive, positiveInt, price, seconds, section, text } from './fields.js';
import { anyPlatformSection, type PlatformSection, type PlatformSchema } from './platform-keys.js';
import { onPlatformSchemas, platformSchemas } from './platform-schemas.js';

export { MAX_SECONDS };

/*
 * The single source of truth for config.yaml: every key, its type and its default.
 * config/default.yaml documents the same keys; a test keeps the two in step.
 * Objects are strict so that unknown keys are reported (see load.ts).
 */

/** An MCP server's name: the middle of `mcp__<server>__<tool>`, so it holds no `__` and nothing a tool name cannot hold. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
const mcpServerName = () =>
  text()
    .max(32, { error: 'an MCP server name has at most 32 characters' })
    .regex(MCP_SERVER_NAME, { error: 'an MCP server name has letters, digits, - and single _ between them (no __)' });
const stringMap = () => z.record(text(), text(), { error: 'expected a map of names to strings' });

/** The model APIs the agent speaks (src/agent/providers). */
export const MODEL_APIS = ['openai', 'anthropic'] as const;
export type ModelApi = (typeof MODEL_APIS)[number];
/** Where each API lives and keeps its key when config.yaml does not say. */
export const MODEL_API_DEFAULTS: Record<ModelApi, { baseUrl: string; apiKeyEnv: string }> = {
  openai: { baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' },
  anthropic: { baseUrl: 'https://api.anthropic.com', apiKeyEnv: 'ANTHROPIC_API_KEY' },
};

/** One entry of `model.fallbacks`; base_url and api_key_env default to the provider's. */
const modelFallback = z.preprocess(
  (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const entry: Record<string, unknown> = { ...value };
    const api = MODEL_APIS.find((name) => name === (entry.provider ?? 'openai'));
    if (api) {
      entry.base_url ??= MODEL_API_DEFAULTS[api].baseUrl;
      entry.api_key_env ??= MODEL_API_DEFAULTS[api].apiKeyEnv;
    }
    return entry;
  },
  z.strictObject(
    {
      provider: oneOf(MODEL_APIS).default('openai'),
      base_url: text(),
      model: z.string({ error: 'every fallback needs a model: the model id to ask' }).min(1, { error: 'every fallback needs a model: the model id to ask' }),
      api_key_env: text(),
    },
    { error: 'expected { provider, base_url, model, api_key_env }' },
  ),
);

/**
 * The model section as written, made ready for its schema: an Anthropic provider's endpoint
 * and key variable when they are not given, and `api_key_env` as a list (a key pool) kept
 * whole in `api_key_pool` with its first name in `api_key_env`.
 */
function modelDefaults(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const model: Record<string, unknown> = { ...value };
  if (model.provider === 'anthropic') {
    model.base_url ??= MODEL_API_DEFAULTS.anthropic.baseUrl;
    model.api_key_env ??= MODEL_API_DEFAULTS.anthropic.apiKeyEnv;
  }
  if (Array.isArray(model.api_key_env)) {
    const pool: unknown[] = model.api_key_env;
    model.api_key_pool = pool;
    model.api_key_env = pool.length > 0 ? pool[0] : undefined;
  }
  return model;
}

/** One entry of `mcp_servers`: a stdio server (`command`) or a streamable HTTP one (`url`). */
const mcpServer = z
  .strictObject({
    command: text().default(''),
    args: names().default([]),
    env: stringMap().default({}),
    env_passthrough: names().default([]),
    url: text().default(''),
    headers: stringMap().default({}),
    tools: section({
      include: names().default([]),
      exclude: names().default([]),
    }),
    scripts: bool().default(false),
    script_approval: oneOf(['ask', 'off'] as const).default('ask'),
    enabled: bool().default(true),
    connect_timeout: seconds().default(30),
    call_timeout: seconds().default(120),
  })
  .refine((server) => (server.command === '') !== (server.url === ''), {
    error: 'give either command (a stdio server) or url (a streamable HTTP server), exactly one of them',
  });

export const CODE_EXECUTION_MODES = ['project', 'strict'] as const;
export type CodeExecutionMode = (typeof CODE_EXECUTION_MODES)[number];

/**
 * `code_execution.mode` as hermes-agent reads it: `STRICT` and `"  project  "` are strict and
 * project; nothing given is project; null, an unknown word or a non-string is project with a
 * warning (the gateway keeps starting).
 */
export function readCodeExecutionMode(value: unknown): { mode: CodeExecutionMode; warning?: string } {
  if (value === undefined) return { mode: 'project' };
  const word = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  const known = CODE_EXECUTION_MODES.find((mode) => mode === word);
  if (known) return { mode: known };
  return {
    mode: 'project',
    warning: `code_execution.mode: expected project or strict, got ${JSON.stringify(value) ?? String(value)}; using project`,
  };
}

type Schemas = Readonly<Record<string, PlatformSchema>> | undefined;

/** `platforms`: each given platform's own section (an unknown name is an unknown key); none given, any name with the shared keys. */
function platformsField(platforms: Schemas): z.ZodType<Record<string, PlatformSection>> {
  if (!platforms) return z.record(text(), anyPlatformSection, { error: 'expected a map of platform names to their settings' }).default({});
  const shape = Object.fromEntries(Object.entries(platforms).map(([name, schema]) => [name, schema.prefault({})]));
  return z.strictObject(shape).prefault({});
}

/** `approvals.admins.<name>` (the older key, still read: src/config/admins.ts), one per platform whose section has admins. */
function adminsField(platforms: Schemas): z.ZodType<Record<string, string[]>> {
  if (!platforms) return z.record(text(), ids(), { error: 'expected a map of platform names to lists of ids' }).default({});
  const withAdmins = Object.entries(platforms).filter(([, schema]) => 'admins' in schema.parse({}));
  return z.strictObject(Object.fromEntries(withAdmins.map(([name]) => [name, ids().default([])]))).prefault({});
}

/** The whole schema with these platform sections (see platform-schemas.ts for where they come from). */
function composeConfigSchema(platforms: Schemas) {
  return z.strictObject({
  /** The IANA zone (Europe/Berlin) every child gets as TZ, as hermes-agent's `timezone`; HERMES_TIMEZONE overrides it; empty: the server's. */
  timezone: text().nullable().default(''),
  model: z.preprocess(modelDefaults, section({
    /** Which API `base_url` speaks: Chat Completions (`openai`, any compatible server) or Anthropic's Messages API. */
    provider: oneOf(MODEL_APIS).default('openai'),
    base_url: text().default('https://api.openai.com/v1'),
    name: text().default(''),
    api_key_env: text().default('OPENAI_API_KEY'),
    /** Filled from `api_key_env` when it is a list (a key pool); the first is `api_key_env`. */
    api_key_pool: names().default([]),
    /** Tried in order when a request fails with 429, 5xx, a timeout or a refused connection. */
    fallbacks: z.array(modelFallback, { error: 'expected a list of { provider, base_url, model, api_key_env }' }).default([]),
    /** Anthropic: cache_control on the system prompt with the tools and on the latest turns. */
    prompt_caching: bool().default(true),
    /** Anthropic: extended thinking with this many budget tokens (at least 1024); null: off. */
    thinking_budget: positiveInt().min(1024, { error: 'expected at least 1024 tokens' }).nullable().default(null),
    max_tokens: positiveInt().nullable().default(null),
    temperature: z.number({ error: 'expected a number' }).min(0).max(2).nullable().default(null),
    timeout: seconds().default(120),
    max_retries: nonNegativeInt().default(3),
    /** Ask for SSE chunks; on by default, and an endpoint that does not stream is asked for whole replies from then on (logged once). */
    stream: bool().default(true),
    vision: z.union([bool(), z.literal('auto')], { error: 'expected true, false or auto' }).default('auto'),
    context_window: positiveInt('a positive whole number of tokens').nullable().default(null),
    pricing: z
      .strictObject({ input: price(), output: price() }, { error: 'expected { input, output } in dollars per million tokens' })
      .nullable()
      .default(null),
  })),
  agent: section({
    max_iterations: positiveInt().default(60),
    tools: section({
      enabled: names().default([]),
      disabled: names().default([]),
    }),
    max_concurrent_children: positiveInt().default(3),
    max_delegate_depth: positiveInt().default(1),
    tool_result_max_chars: positiveInt().default(100_000),
  }),
  code_execution: section({
    /** project or strict, read as hermes-agent reads it: any case, trimmed; anything else is project with a warning (readCodeExecutionMode). */
    mode: z.preprocess((value) => readCodeExecutionMode(value).mode, oneOf(CODE_EXECUTION_MODES)),
    timeout: seconds().default(300),
    max_tool_calls: positiveInt().default(50),
    python: text().default('python3'),
    rpc_transport: oneOf(['unix', 'tcp'] as const).default(process.platform === 'win32' ? 'tcp' : 'unix'),
    max_stdout_bytes: positiveInt().default(50_000),
    max_stderr_bytes: positiveInt().default(10_000),
    max_spill_bytes: positiveInt().default(5_000_000),
    kill_grace: seconds().default(5),
    session_kernels: bool().default(true),
    kernel_idle_timeout: seconds().default(1800),
    max_session_kernels: positiveInt().default(4),
    max_rpc_connections: positiveInt().default(64),
    redact_secrets: bool().default(true),
  }),
  terminal: section({
    backend: text().default('local'),
    /** The working folder on this host; null: HERMES_HOME/workspace whatever folder the gateway starts in (src/environments/working-folder.ts). */
    cwd: text().nullable().default(null),
    timeout: seconds().default(180),
    max_timeout: seconds().default(3600),
    platform_backend: text().default('auto'),
    max_output_bytes: positiveInt().default(50_000),
    env_passthrough: names().default([]),
    container_persistent: bool().default(true),
    /** Kernel-enforced limits (rlimits) of each process a command starts; see src/environments/limits.ts. */
    limits: section({
      processes: positiveInt().default(256),
      memory: byteSize().default('2g'),
      file_size: byteSize().default('1g'),
      cpu_time: nonNegativeInt().default(0),
      open_files: positiveInt().default(1024),
    }),
    sandbox: section({
      network: bool().default(false),
      extra_ro_binds: names().default([]),
      /** As root: the first host uid (and gid) sandboxes run as, one per session folder from it on. */
      uid: positiveInt().max(4_294_901_759, { error: 'expected a uid below 4294901760 (uid + 65535 must stay a valid id)' }).default(1_900_000_000),
    }),
    ssh: section({
      host: text().default(''),
      user: text().default(''),
      port: port().default(22),
      key: text().default(''),
      persistent: bool().default(true),
      connect_timeout: seconds().default(10),
      direct_channel: bool().default(true),
    }),
    docker: section({
      binary: text().default(''),
      image: text().default('python:3.12-slim'),
      network: bool().default(false),
      memory: text().default('2g'),
      cpus: positive().default(2),
      pids_limit: positiveInt().default(512),
    }),
  }),
  web: section({
    search_provider: oneOf(['auto', 'searxng', 'brave', 'tavily'] as const).default('auto'),
    searxng_url: text().default(''),
    brave_api_url: text().default('https://api.search.brave.com/res/v1/web/search'),
    tavily_api_url: text().default('https://api.tavily.com/search'),
    allow_private_addresses: bool().default(false),
    timeout: seconds().default(20),
    max_bytes: positiveInt().default(5_000_000),
    max_redirects: nonNegativeInt().default(5),
    extract_char_limit: positiveInt().default(50_000),
  }),
  logging: section({
    level: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const).default('info'),
  }),
  compression: section({
    enabled: bool().default(true),
    threshold: fraction().default(0.8),
    target: fraction().default(0.5),
    keep_last_turns: positiveInt().default(4),
    max_tool_argument_chars: positiveInt().default(20_000),
  }),
  gateway: section({
    busy_input_mode: oneOf(['interrupt', 'queue', 'steer'] as const).default('interrupt'),
    max_concurrent_turns: positiveInt().default(8),
  }),
  files: section({
    max_inbound_mb: positive().default(20),
  }),
  /** Voice in (src/voice/stt.ts): an OpenAI-compatible /audio/transcriptions endpoint; off while base_url is empty. */
  stt: section({
    base_url: text().default(''),
    model: text().default('whisper-1'),
    /** The variable holding its key; empty: none is sent (a local Whisper server). */
    api_key_env: text().default(''),
    timeout: seconds().default(60),
    /** Audio larger than this is saved but not transcribed (25 MB is OpenAI's limit). */
    max_mb: positive().default(25),
  }),
  /** Voice out (src/voice/tts.ts, `/voice on`): an OpenAI-compatible /audio/speech endpoint, or with no key the local espeak-ng. */
  tts: section({
    base_url: text().default(''),
    model: text().default('tts-1'),
    voice: text().default('alloy'),
    /** The variable holding its key; when it is empty or unset, speech is made by espeak-ng on this host. */
    api_key_env: text().default(''),
    timeout: seconds().default(60),
    /** Longer answers are cut here before they are read aloud. */
    max_chars: positiveInt().default(4000),
  }),
  display: section({
    tool_progress: oneOf(['off', 'new', 'all'] as const).default('new'),
    reactions: bool().default(false),
  }),
  approvals: section({
    mode: oneOf(['on', 'off'] as const).default('on'),
    timeout: seconds().default(300),
    /** `ask`: every execute_code script waits for approval on this host; what a script does is judged either way (floor refused, risky asked). */
    execute_code: oneOf(['off', 'ask'] as const).default('off'),
    /** Per platform, the user ids who may answer anyone's approval request and move the home channel (/sethome). */
    admins: adminsField(platforms),
  }),
  cron: section({
    enabled: bool().default(true),
    missed_runs: oneOf(['skip', 'run_once'] as const).default('skip'),
    min_interval: seconds().default(1),
    max_jobs_per_thread: positiveInt().default(10),
    max_jobs: positiveInt().default(200),
    max_concurrent_runs: positiveInt().default(2),
    max_output_chars: positiveInt().default(4000),
  }),
  plugins: section({
    enabled: names().default([]),
    disabled: names().default([]),
  }),
  platforms: platformsField(platforms),
  /** Memory per person (src/memory): hermes-agent's keys. */
  memory: section({
    memory_enabled: bool().default(true),
    user_profile_enabled: bool().default(true),
    memory_char_limit: positiveInt().default(2200),
    user_char_limit: positiveInt().default(1375),
  }),
  sessions: section({
    store: oneOf(['sqlite', 'postgres'] as const).default('sqlite'),
    postgres_url: text().default(''),
  }),
  coordination: section({
    backend: oneOf(['none', 'redis'] as const).default('none'),
    redis_url: text().default(''),
    lease_seconds: seconds().default(10),
  }),
  mcp_servers: z.record(mcpServerName(), mcpServer, { error: 'expected a map of server names to MCP server settings' }).default({}),
  });
}

/** The schema as the core alone knows it: any platform section holds the shared keys. */
export const configSchema = composeConfigSchema(undefined);

let current: ReturnType<typeof composeConfigSchema> | undefined;
onPlatformSchemas(() => {
  current = undefined;
});

/** The schema with the platforms' own sections once they are given (usePlatformSchemas): what config.yaml is validated with. */
export function currentConfigSchema(): ReturnType<typeof composeConfigSchema> {
  const given = platformSchemas();
  if (!given) return configSchema;
  current ??= composeConfigSchema(given);
  return current;
}

/** The configuration after defaults are applied. */
export type HermesConfig = z.output<typeof configSchema>;

/** A partial object of the same shape as config.yaml, laid over the loaded configuration. */
export type ConfigOverrides = DeepPartial<HermesConfig>;

export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;
