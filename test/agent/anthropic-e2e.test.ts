import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-server.js';

/*
 * `hermes gateway` with model.provider anthropic: the official SDK against the fake Messages
 * API, the real agent, a real execute_code script, and the reply streamed to the fake Telegram.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;
const ADA = 1001;

let stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

describe('the Anthropic provider through the gateway', () => {
  it.runIf(hasPython || process.env.CI === 'true')('an execute_code call runs, its result goes back as a tool_result, and the answer streams to Telegram', async () => {
    const api = await new FakeTelegramApi({ enforceRates: true }).start();
    stops.push(() => api.close());
    const anthropic: FakeAnthropic = await startFakeAnthropic({ apiKeys: ['sk-ant-e2e'] });
    stops.push(() => anthropic.close());
    const answer = 'The script printed 42, so six times seven is forty-two. '.repeat(6).trim();
    anthropic.enqueue(
      { thinking: { thinking: 'I will compute it in Python.', signature: 'sig-e2e' }, toolCalls: [{ id: 'toolu_exec', name: 'execute_code', input: { code: 'print(6 * 7)' } }] },
      { text: answer, chunkChars: 4, paceMs: 20 },
    );
    const home = mkdtempSync(join(tmpdir(), 'hermes-anthropic-e2e-'));
    stops.push(() => rmSync(home, { recursive: true, force: true }));
    const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA), ANTHROPIC_API_KEY: 'sk-ant-e2e' };
    delete env.TELEGRAM_WEBHOOK_URL;
    delete env.GATEWAY_ALLOW_ALL_USERS;
    const platforms = { slack: { enabled: false }, discord: { enabled: false }, web: { enabled: false }, telegram: { api_root: api.apiRoot } };
    const loaded = loadConfig({
      home,
      overrides: { model: { provider: 'anthropic', base_url: anthropic.url, name: 'claude-e2e', api_key_env: 'ANTHROPIC_API_KEY', stream: true }, platforms, terminal: { platform_backend: 'local' } },
      loadEnv: false,
      env,
    });
    const { startGateway } = await import('../../src/cli/commands/gateway.js');
    const running: RunningGateway = await startGateway(loaded, { env });
    stops.push(() => running.stop());

    api.injectMessage({ chatId: ADA, userId: ADA, text: 'what is 6 times 7? use python' });
    await api.waitFor(() => api.sentTo(ADA).some((message) => message.text === answer), 'the streamed answer');
    await running.gateway.idle();

    expect(anthropic.requests).toHaveLength(2);
    const second = anthropic.requests[1].body;
    expect(second.tools?.map((tool) => tool.name)).toContain('execute_code');
    const assistant = second.messages.at(-2)!;
    expect(assistant.content).toEqual([
      { type: 'thinking', thinking: 'I will compute it in Python.', signature: 'sig-e2e' },
      expect.objectContaining({ type: 'tool_use', id: 'toolu_exec', name: 'execute_code', input: { code: 'print(6 * 7)' } }),
    ]);
    const results = second.messages.at(-1)!.content;
    expect(results).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_exec', content: expect.stringContaining('42') })]);
    // Streamed: a draft showed the text as it arrived, then the finished message replaced it.
    const drafts = api.draftsIn(ADA);
    expect(drafts.length).toBeGreaterThan(0);
    // The first draft showed the answer's beginning: the text was on screen before the whole reply came.
    const shown = api.callsOf('sendMessageDraft').map((call) => String(call.params.text ?? ''));
    expect(shown.length).toBeGreaterThan(0);
    expect(answer.startsWith(shown[0])).toBe(true);
    expect(shown[0].length).toBeLessThan(answer.length);
    expect(api.rateViolations).toBe(0);
  }, 90_000);
});
