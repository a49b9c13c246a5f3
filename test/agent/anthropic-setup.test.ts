import { describe, expect, it } from 'vitest';
import { keyOf, startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-server.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';
import { MODEL_PROVIDERS, listModels, testModel } from '../../src/cli/setup/model-step.js';
import { listModels as formModels, testCall } from '../../adapters/web/model-probe.js';
import { ContextWindows } from '../../src/agent/index.js';
import { defaultConfig, validateConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/shared/index.js';

/* hermes setup, the web settings form and the context-window look-up know the Anthropic provider: its key variable and GET /v1/models. */
let fake: FakeAnthropic | undefined;
const keep = releaseAfterEach();

describe('setting up the Anthropic provider', () => {
  it('setup lists the models with the key, and its test call goes through the Messages API with a tool', async () => {
    fake = keep(await startFakeAnthropic({ apiKeys: ['sk-ant-setup'], models: ['claude-b', 'claude-a'] }), (started) => started.close());
    expect(MODEL_PROVIDERS.anthropic).toMatchObject({ api: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY', needsKey: true });
    expect(await listModels(fake.url, 'sk-ant-setup', 'anthropic')).toEqual({ ids: ['claude-a', 'claude-b'] });
    expect(await listModels(fake.url, 'wrong', 'anthropic')).toEqual({ error: expect.stringContaining('401') });
    fake.enqueue({ toolCalls: [{ name: 'hermes_check', input: { word: 'ready' } }] });
    const result = await testModel(defaultConfig(), { api: 'anthropic', baseUrl: fake.url, name: 'claude-a', apiKeyEnv: 'ANTHROPIC_API_KEY', apiKey: 'sk-ant-setup' }, {});
    expect(result).toMatchObject({ ok: true, toolCalled: true });
    expect(fake.requests.at(-1)?.path).toBe('/v1/messages');
    expect(keyOf(fake.requests.at(-1)!)).toBe('sk-ant-setup');
  });

  it('the web form lists the models and makes its test call on the Messages API', async () => {
    fake = keep(await startFakeAnthropic({ models: ['claude-a'] }), (started) => started.close());
    const endpoint = { api: 'anthropic' as const, baseUrl: fake.url, apiKey: 'k' };
    expect(await formModels(endpoint)).toEqual(['claude-a']);
    fake.enqueue({ text: 'OK' });
    expect(await testCall(endpoint, 'claude-a')).toBe('OK');
  });

  it('the context window comes from the model list (max_input_tokens)', async () => {
    fake = keep(await startFakeAnthropic({ models: ['claude-a'] }), (started) => started.close());
    const model = validateConfig({ model: { provider: 'anthropic', base_url: fake.url, name: 'claude-a' } }, 'test').config.model;
    const windows = new ContextWindows({ model, logger: silentLogger(), env: { ANTHROPIC_API_KEY: 'k' } });
    expect(await windows.get('claude-a')).toEqual({ tokens: 200_000, source: 'endpoint' });
  });
});
