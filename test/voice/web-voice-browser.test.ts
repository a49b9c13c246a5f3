import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { FakeAudioApi } from '../fakes/fake-audio-api.js';
import { filesModel, userText } from '../fakes/files-model.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { CHROMIUM } from '../helpers/browser.js';
import { envWithoutPlatformTokens, sendMessage, startWebChatGateway, webChatBrowserSkipReason } from '../helpers/web-chat.js';

const skip = webChatBrowserSkipReason('web voice browser tests');
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(Boolean(skip))('web chat voice in a real chromium with a fake microphone', { timeout: 120_000 }, () => {
  it('the record button records the fake microphone, uploads it like a file, the model reads its transcript; /voice on answers with an <audio> player', async () => {
    const audio = await new FakeAudioApi().start();
    cleanups.push(() => audio.close());
    const model: FakeOpenAI = await startFakeOpenAI({ fallback: filesModel() });
    cleanups.push(() => model.close());
    const home = mkdtempSync(join(tmpdir(), 'hermes-web-voice-'));
    const workspace = mkdtempSync(join(tmpdir(), 'hermes-web-voice-work-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }), () => rmSync(workspace, { recursive: true, force: true }));
    const env = envWithoutPlatformTokens({ WEB_VOICE_MODEL_KEY: 'sk-fake' });
    const loaded = loadConfig({
      home,
      env,
      loadEnv: false,
      overrides: {
        model: { base_url: model.url, name: 'fake-model', api_key_env: 'WEB_VOICE_MODEL_KEY', stream: false, vision: false },
        platforms: { web: { port: 0 } },
        terminal: { backend: 'local', platform_backend: 'local', cwd: workspace },
        stt: { base_url: audio.url, model: 'whisper-test' },
      },
    });
    const { running, url } = await startWebChatGateway(loaded, env);
    cleanups.push(() => running.stop());

    const profile = mkdtempSync(join(tmpdir(), 'hermes-chromium-voice-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
    });
    cleanups.push(async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(url);
    const record = page.getByRole('button', { name: 'Record a voice note' });
    await record.click();
    await page.getByRole('button', { name: 'Stop recording' }).waitFor();
    await page.waitForTimeout(1500);
    await page.getByRole('button', { name: 'Stop recording' }).click();
    await page.locator('#pending .chip', { hasText: 'voice-note.webm' }).filter({ hasNotText: 'Uploading' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.assistant', { hasText: 'echo:' }).first().waitFor({ timeout: 60_000 });
    expect(audio.transcriptions).toHaveLength(1);
    expect(audio.transcriptions[0].file?.filename).toBe('voice-note.webm');
    expect(userText(model.requests[0])).toMatch(/^\[attached: uploads\/voice-note\.webm — .+, audio\/webm\]\n\[transcript of uploads\/voice-note\.webm: "hello from the voice note"\]$/);

    await sendMessage(page, '/voice on');
    await page.locator('.msg', { hasText: 'Voice in this thread: on' }).waitFor();
    await sendMessage(page, 'say it aloud');
    const player = page.locator('.msg.file audio');
    await player.waitFor({ timeout: 60_000 });
    const duration = await player.evaluate(async (element) => {
      const media = element as HTMLAudioElement;
      if (Number.isNaN(media.duration) || media.readyState < 1) await new Promise((resolve, reject) => {
        media.addEventListener('loadedmetadata', resolve, { once: true });
        media.addEventListener('error', () => reject(new Error(`audio error ${media.error?.code}`)), { once: true });
        media.load();
      });
      return media.duration;
    });
    expect(duration).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
