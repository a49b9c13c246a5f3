import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { FakeAudioApi } from '../fakes/fake-audio-api.js';
import { filesModel } from '../fakes/files-model.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eConfig } from '../fakes/slack-e2e-model.js';

export interface VoiceGateway {
  running: RunningGateway;
  model: FakeOpenAI;
  audio: FakeAudioApi;
  workspace: string;
  stop(): Promise<void>;
}

const PLATFORMS = ['slack', 'discord', 'telegram', 'web'] as const;

/**
 * `hermes gateway` with only `platform` enabled, the files model (it echoes what it was told),
 * and `stt:` on the fake audio API (its key in `STT_TEST_KEY`); `tts` as given (none: espeak-ng).
 */
export async function startVoiceGateway(
  platform: (typeof PLATFORMS)[number],
  settings: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  options: { stt?: Record<string, unknown>; tts?: Record<string, unknown>; maxInboundMb?: number } = {},
): Promise<VoiceGateway> {
  const audio = await new FakeAudioApi().start();
  const model = await startFakeOpenAI({ fallback: filesModel() });
  const keyVar = 'HERMES_VOICE_MODEL_KEY';
  process.env[keyVar] = 'sk-fake';
  const workspace = mkdtempSync(join(tmpdir(), 'hermes-voice-work-'));
  const platforms = Object.fromEntries(PLATFORMS.map((name) => [name, name === platform ? settings : { enabled: false }]));
  const made = e2eConfig(
    {
      model: { base_url: model.url, name: 'fake-model', api_key_env: keyVar, stream: false, vision: false },
      platforms,
      terminal: { backend: 'local', platform_backend: 'local', cwd: workspace },
      files: { max_inbound_mb: options.maxInboundMb ?? 20 },
      stt: { base_url: audio.url, model: 'whisper-test', api_key_env: 'STT_TEST_KEY', ...options.stt },
      ...(options.tts ? { tts: options.tts } : {}),
    },
    { ...env, STT_TEST_KEY: 'sk-stt-test' },
  );
  const { startGateway } = await import('../../src/cli/commands/gateway.js');
  const running = await startGateway(made.loaded, { env: { ...env, STT_TEST_KEY: 'sk-stt-test' }, print: () => undefined });
  return {
    running,
    model,
    audio,
    workspace,
    async stop() {
      await running.stop();
      await model.close();
      await audio.close();
      made.cleanup();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}
