import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.js';
import { probeAudio, speakableText, speakerFor } from '../../src/voice/index.js';
import { FakeAudioApi, probe, toneOgg } from '../fakes/fake-audio-api.js';

let audio: FakeAudioApi | undefined;
afterEach(async () => {
  await audio?.close();
  audio = undefined;
});

describe('what is read aloud', () => {
  it('code blocks become "code omitted", long tables "table omitted", short tables and Markdown are read as words', () => {
    const answer = [
      '# Result',
      'Run **this** with `npm test`, see [the docs](https://example.org/docs):',
      '```bash',
      'rm -rf node_modules',
      '```',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      'Then:',
      '| n |',
      '|---|',
      ...Array.from({ length: 6 }, (_, i) => `| ${i} |`),
      'MEDIA:uploads/chart.png',
      'Done.',
    ].join('\n');
    const spoken = speakableText(answer, 4000);
    expect(spoken).toBe(['Result', 'Run this with npm test, see the docs:', '', '(code omitted)', '', 'a, b', '1, 2', 'Then:', '(table omitted)', 'Done.'].join('\n'));
    expect(spoken).not.toContain('rm -rf');
  });

  it('an unclosed code block is left out too, and a long answer is cut with a note', () => {
    expect(speakableText('Here:\n```\nsecret()', 4000)).toBe('Here:\n\n(code omitted)');
    const long = speakableText('One sentence. '.repeat(100), 200);
    expect(long.length).toBeLessThan(260);
    expect(long.endsWith('(The rest is in the written answer.)')).toBe(true);
  });
});

describe('speech from an OpenAI-compatible /audio/speech endpoint', () => {
  const config = (url: string) => configSchema.parse({ tts: { base_url: url, model: 'tts-test', voice: 'nova', api_key_env: 'TTS_KEY' } });

  it('with a key the endpoint speaks (model, voice, the text) and its audio becomes an OGG Opus voice clip with a waveform', async () => {
    audio = await new FakeAudioApi().start();
    const speaker = speakerFor(config(audio.url), { TTS_KEY: 'sk-tts' });
    expect(speaker.engine).toBe(audio.url);
    const clip = await speaker.speak('hello there', new AbortController().signal);
    expect(audio.speeches).toEqual([{ authorization: 'Bearer sk-tts', body: { model: 'tts-test', voice: 'nova', input: 'hello there', response_format: 'opus' } }]);
    expect(probe(clip.ogg)).toEqual({ codec: 'opus', format: 'ogg' });
    expect(clip.durationSecs).toBeGreaterThan(0.5);
    expect(Buffer.from(clip.waveform, 'base64').length).toBe(256);
  });

  it('an endpoint that answers with something that is not audio is refused with why', async () => {
    audio = await new FakeAudioApi().start();
    audio.speech = Buffer.from('<html>not audio</html>');
    const speaker = speakerFor(config(audio.url), { TTS_KEY: 'sk-tts' });
    await expect(speaker.speak('hello', new AbortController().signal)).rejects.toThrow(/the speech endpoint's answer is not audio/);
  });

  it('without the key the local espeak-ng speaks instead', () => {
    expect(speakerFor(config('http://127.0.0.1:9/v1'), {}).engine).toBe('espeak-ng');
  });
});

describe('ffprobe decides what is audio', () => {
  it('an OGG Opus tone is audio; a script, an empty file and a PNG header are not', async () => {
    expect(await probeAudio(toneOgg())).toMatchObject({ audio: true, codec: 'opus' });
    for (const bytes of [Buffer.from('#!/bin/sh\necho hi\n'), Buffer.alloc(0), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])]) {
      expect(await probeAudio(bytes)).toMatchObject({ audio: false });
    }
  });
});
