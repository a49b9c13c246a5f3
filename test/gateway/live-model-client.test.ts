import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/index.js';
import { liveModelClient } from '../../src/gateway/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';

describe('liveModelClient: the model follows the running configuration', () => {
  it('sends the next request to the new endpoint, model and key once the model section changes in place', async () => {
    const first = await startFakeOpenAI({ apiKey: 'key-one', fallback: { text: 'from one' } });
    const second = await startFakeOpenAI({ apiKey: 'key-two', fallback: { text: 'from two' } });
    try {
      const config = defaultConfig();
      Object.assign(config.model, { base_url: first.url, name: 'm1', api_key_env: 'ONE_KEY' });
      const env: NodeJS.ProcessEnv = { ONE_KEY: 'key-one' };
      const client = liveModelClient({ model: config.model, logger: silentLogger(), env });
      const ask = () => client.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
      expect((await ask()).content).toBe('from one');

      Object.assign(config.model, { base_url: second.url, name: 'm2', api_key_env: 'TWO_KEY' });
      env.TWO_KEY = 'key-two';
      expect(client.model).toBe('m2');
      expect((await ask()).content).toBe('from two');
      expect(second.requests[0].body.model).toBe('m2');
      expect(second.requests[0].headers.authorization).toBe('Bearer key-two');

      // A new key for the same variable (saved to .env) is used at the next request.
      env.TWO_KEY = 'key-wrong';
      await expect(ask()).rejects.toThrow(/401|key/i);
      expect(first.requests).toHaveLength(1);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
