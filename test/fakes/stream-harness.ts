import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ConfigOverrides } from '../../src/config/index.js';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply } from './openai-server.js';

/*
 * `hermes gateway` as the CLI starts it, with one platform pointed at its fake and a fake
 * model that streams (`model.stream: true`); the tests of streamed replies share it.
 */

const PLATFORMS = ['slack', 'discord', 'telegram', 'web'] as const;

export interface StreamGateway {
  running: RunningGateway;
  model: FakeOpenAI;
  home: string;
  stop(): Promise<void>;
}

/** `count` words of varied length, lines of about 12 words, as a model's answer reads. */
export function words(count: number, seed = 'w'): string {
  const vocabulary = ['stream', 'message', 'reply', 'gateway', 'the', 'a', 'quick', 'answer', 'edits', 'in', 'place', 'exactly', 'once', 'part', 'of', 'text'];
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(`${vocabulary[(i * 7 + seed.length) % vocabulary.length]}${i % 10 === 0 ? i : ''}`);
  const lines: string[] = [];
  for (let i = 0; i < out.length; i += 12) lines.push(out.slice(i, i + 12).join(' '));
  return lines.join('\n');
}

/**
 * Starts the gateway with only `platform` enabled (with `settings`), in a fresh HERMES_HOME
 * (or `home`, to start again after a stop), the model streaming `replies` in order, then `fallback`.
 */
export async function startStreamGateway(
  platform: (typeof PLATFORMS)[number],
  settings: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  options: { replies?: FakeReply[]; fallback?: FakeReply; overrides?: ConfigOverrides; home?: string } = {},
): Promise<StreamGateway> {
  const keyVar = 'HERMES_STREAM_TEST_KEY';
  const platforms = Object.fromEntries(PLATFORMS.map((name) => [name, name === platform ? settings : { enabled: false }]));
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'hermes-stream-'));
  const model = await startFakeOpenAI({ stream: true, fallback: options.fallback ?? { text: 'fallback answer' } });
  if (options.replies) model.enqueue(...options.replies);
  const loaded = loadConfig({
    home,
    overrides: {
      ...options.overrides,
      model: { base_url: model.url, name: 'fake-model', api_key_env: keyVar, stream: true, ...options.overrides?.model },
      platforms,
      terminal: { platform_backend: 'local', ...options.overrides?.terminal },
    },
    loadEnv: false,
    env: { ...env, [keyVar]: 'sk-fake' },
  });
  const { startGateway } = await import('../../src/cli/commands/gateway.js');
  const running = await startGateway(loaded, { env: { ...env, [keyVar]: 'sk-fake' } });
  return {
    running,
    model,
    home,
    async stop() {
      await running.stop();
      await model.close();
    },
  };
}

/** Removes a HERMES_HOME the harness made. */
export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}
