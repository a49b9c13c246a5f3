/*
 * The model providers `hermes setup` and the web chat's settings form offer, and the variable
 * each keeps its key in (HERMES_HOME/.env): one table, so both write the same config.
 * `baseUrl`: `default` is config's default model.base_url, `ask` means the person types it;
 * `api`: the model.provider it speaks.
 */
export const MODEL_PROVIDERS = {
  openai: { label: 'OpenAI', api: 'openai', apiKeyEnv: 'OPENAI_API_KEY', needsKey: true, baseUrl: 'default' },
  openrouter: { label: 'OpenRouter', api: 'openai', apiKeyEnv: 'OPENROUTER_API_KEY', needsKey: true, baseUrl: 'ask' },
  ollama: { label: 'Ollama on this machine', api: 'openai', apiKeyEnv: 'OLLAMA_API_KEY', needsKey: false, baseUrl: 'http://127.0.0.1:11434/v1' },
  custom: { label: 'any OpenAI-compatible server (vLLM, llama.cpp, LM Studio…)', api: 'openai', apiKeyEnv: 'MODEL_API_KEY', needsKey: false, baseUrl: 'ask' },
  anthropic: { label: 'Anthropic (Claude, the Messages API)', api: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY', needsKey: true, baseUrl: 'https://api.anthropic.com' },
} as const;
export type ModelProviderId = keyof typeof MODEL_PROVIDERS;

export function isModelProvider(value: unknown): value is ModelProviderId {
  return typeof value === 'string' && Object.hasOwn(MODEL_PROVIDERS, value);
}
