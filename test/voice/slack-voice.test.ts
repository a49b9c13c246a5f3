import { describe, expect, it } from 'vitest';
import { probe, toneOgg } from '../fakes/fake-audio-api.js';
import { userText } from '../fakes/files-model.js';
import { FakeSlack, slackMessage } from '../fakes/slack-server.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';
import { startVoiceGateway } from './voice-gateway.js';

const keep = releaseAfterEach();

describe('Slack audio files, through the fake Web API and a fake transcription endpoint', () => {
  it('an audio clip shared in a DM is transcribed for the model; /voice on uploads the spoken answer as an OGG Opus file', async () => {
    const slack = keep(await new FakeSlack().listen(), (fake) => fake.close());
    const env = { ...process.env, SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken, SLACK_ALLOWED_USERS: 'U1' };
    const gateway = keep(await startVoiceGateway('slack', { mode: 'socket', api_url: slack.apiUrl }, env), (started) => started.stop());
    const ogg = toneOgg();
    const clip = slack.addFile({ name: 'audio_message.ogg', mimetype: 'audio/ogg', bytes: ogg });
    await slack.deliverSocket(slack.eventBody(slack.fileShare({ channel: 'D1', user: 'U1', ts: slack.nextTs(), files: [clip] })));
    await slack.waitForCall('chat.postMessage', (call) => call.params.channel === 'D1' && String(call.params.text).startsWith('echo:'));
    expect(gateway.audio.transcriptions).toHaveLength(1);
    expect(gateway.audio.transcriptions[0].file?.bytes.equals(ogg)).toBe(true);
    expect(userText(gateway.model.requests[0])).toMatch(/^\[attached: uploads\/audio_message\.ogg — .+, audio\/ogg\]\n\[transcript of uploads\/audio_message\.ogg: "hello from the voice note"\]$/);

    await slack.deliverSocket(slack.eventBody(slackMessage({ channel: 'D1', user: 'U1', text: '!voice on', ts: slack.nextTs() })));
    await slack.waitForCall('chat.postMessage', (call) => String(call.params.text).startsWith('Voice in this thread: on'));
    await slack.deliverSocket(slack.eventBody(slackMessage({ channel: 'D1', user: 'U1', text: 'speak to me', ts: slack.nextTs() })));
    await waitUntil(() => [...slack.uploads.values()].some((upload) => upload.filename === 'answer.ogg' && upload.bytes !== undefined && upload.completed !== undefined));
    const upload = [...slack.uploads.values()].find((entry) => entry.filename === 'answer.ogg')!;
    expect(probe(upload.bytes!)).toEqual({ codec: 'opus', format: 'ogg' });
  }, 90_000);
});

async function waitUntil(test: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out waiting for the voice upload');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
