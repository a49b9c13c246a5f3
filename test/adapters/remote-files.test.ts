import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { printedPng, userText } from '../fakes/files-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { TEST_IMAGE, engineSkipReason, requireEngine } from '../helpers/container-engine.js';
import { startSshd, sshdUnavailable, type TestSshd } from '../helpers/sshd.js';
import { hasPython, startFilesGateway, type FilesGateway } from './files-helpers.js';

/*
 * The CSV → script → PNG round trip of telegram-files.test.ts on the remote backends: the
 * file goes in through the SSH connection or `exec -i` into the container, and the chart
 * comes out the same way.
 */
const ADA = 1001;
const CSV = Buffer.from('item,amount\napples,12\npears,30\nplums,18\n');
const noSsh = process.env.CI === 'true' ? undefined : sshdUnavailable();
const noEngine = await engineSkipReason();
if (noSsh) console.warn(`file tests on ssh skipped: ${noSsh}`);
if (noEngine) console.warn(`file tests on docker skipped: ${noEngine}`);

let api: FakeTelegramApi | undefined;
let gateway: FilesGateway | undefined;

afterEach(async () => {
  await gateway?.stop();
  await api?.close();
  gateway = api = undefined;
});

async function roundTrip(backend: 'ssh' | 'docker', terminal: Record<string, unknown>): Promise<FilesGateway> {
  api = await new FakeTelegramApi().start();
  const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) };
  delete env.TELEGRAM_WEBHOOK_URL;
  gateway = await startFilesGateway('telegram', { api_root: api.apiRoot }, env, { backend, keyVar: 'HERMES_REMOTE_FILES_KEY', terminal });
  const fake = api;
  fake.injectFile({ chatId: ADA, kind: 'document', bytes: CSV, fileName: 'sales-2026-11.csv', mimeType: 'text/csv', caption: 'plot the totals' });
  await fake.waitFor(() => fake.sentTo(ADA).some((sent) => sent.text.startsWith('done:')), 'the answer');
  expect(userText(gateway.model.requests[0])).toBe('plot the totals\n[attached: uploads/sales-2026-11.csv — 40 B, text/csv]');
  const [chart] = fake.filesSentTo(ADA);
  expect(chart.method).toBe('sendPhoto');
  expect(chart.caption).toBe('total 60');
  expect(chart.bytes.equals(printedPng(gateway.model.requests)!)).toBe(true);
  return gateway;
}

describe.runIf(!noSsh && (hasPython || process.env.CI === 'true'))('files both ways on the ssh backend', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });

  it('a CSV sent on Telegram lands in uploads/ on the SSH host; the chart the script draws there comes back as a photo', async () => {
    const started = await roundTrip('ssh', { ssh: { host: sshd.host, port: sshd.port, user: sshd.user, key: sshd.key, connect_timeout: 5 } });
    expect(readFileSync(join(started.workspace(), 'uploads', 'sales-2026-11.csv')).equals(CSV)).toBe(true);
  }, 120_000);
});

describe.runIf(!noEngine)('files both ways on the docker backend', () => {
  beforeAll(async () => {
    await requireEngine();
  }, 300_000);

  it('a CSV sent on Telegram lands in the container\'s uploads/; the chart the script draws there comes back as a photo', async () => {
    await roundTrip('docker', { container_persistent: false, docker: { image: TEST_IMAGE } });
  }, 180_000);
});
