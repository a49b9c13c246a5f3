import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply } from '../fakes/openai-server.js';
import { e2eModel, release, waitForPgid } from '../fakes/slack-e2e-model.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import type { WebEntry } from '../../adapters/web/index.js';
import { freePort, gatewayStarted, ownerOf, postUpdate, spawnGateway, stopGatewayProcess, textUpdate, type GatewayProcess } from './gateway-processes.js';
import { until } from './helpers.js';
import { instancesCanRun, useTelegramInstances } from './telegram-instances.js';

/*
 * Two live `hermes gateway` processes on one Redis: a document sent to B for a thread whose
 * lease A holds goes to A with the message, and A's script reads it.
 */
const runs = instancesCanRun('the files-across-instances test');

const KEY_VAR = 'HERMES_FILES_ACROSS_KEY';
const ADA = 1001;

/** config.yaml for the instances of one test: the fake model, local terminals, one Redis. */
function configYaml(model: FakeOpenAI, redis: TestRedis, platforms: string[]): string {
  return [
    'model:',
    `  base_url: ${model.url}`,
    '  name: fake-model',
    `  api_key_env: ${KEY_VAR}`,
    ...platforms,
    'terminal:',
    '  backend: local',
    '  platform_backend: local',
    'cron:',
    '  enabled: false',
    'coordination:',
    '  backend: redis',
    `  redis_url: ${redis.url}`,
    '',
  ].join('\n');
}

/** A file in uploads/ → a script that marks its process group (`READ.pgid`), waits for `READ.go`, and prints the file. */
function readingModel(dir: string): FakeReply {
  const fallback = e2eModel(dir);
  if (!('respond' in fallback)) throw new Error('e2eModel answers by a function');
  return {
    respond: (request) => {
      const last = request.body.messages[request.body.messages.length - 1];
      const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
      const attached = /\[attached: (uploads\/[^\s\]]+) — /.exec(text);
      if (last.role !== 'user' || !attached) return fallback.respond(request);
      const marker = JSON.stringify(join(dir, 'READ.pgid'));
      const go = JSON.stringify(join(dir, 'READ.go'));
      const code = [
        'import os, time',
        `with open(${marker} + '.tmp', 'w') as f:`,
        '    f.write(str(os.getpgrp()))',
        `os.replace(${marker} + '.tmp', ${marker})`,
        `while not os.path.exists(${go}):`,
        '    time.sleep(0.05)',
        `print('CONTENT', open(${JSON.stringify(attached[1])}).read())`,
        '',
      ].join('\n');
      return { toolCalls: [{ name: 'execute_code', arguments: { code } }] };
    },
  };
}

describe.runIf(runs)('files sent to an instance that does not hold the thread', () => {
  const fx = useTelegramInstances({ name: 'files-across', keyVar: KEY_VAR, allowed: [ADA], model: readingModel, count: 2 });

  it('a document sent to B while A holds the thread is saved on A and read by the script A runs', async () => {
    const { api, home, instances } = fx;
    const [a, b] = instances;
    const answers = () => api.sentTo(ADA).map((sent) => sent.text).filter((text) => !text.startsWith('⚙️'));
    // A holds the thread: its script waits.
    expect(await postUpdate(a, textUpdate(ADA, 'hold on [WAIT:H1]'))).toBe(200);
    expect(ownerOf(await waitForPgid(home, 'H1'), instances)).toBe(a);

    const bytes = Buffer.from('passed-from-b 42\n');
    const file = api.addFile(bytes, 'txt');
    const update = textUpdate(ADA, '');
    delete update.message.text;
    update.message.caption = 'read this';
    update.message.document = { file_id: file.file_id, file_unique_id: file.file_unique_id, file_name: 'notes.txt', mime_type: 'text/plain', file_size: bytes.length };
    expect(await postUpdate(b, update)).toBe(200);

    // The script that reads the file runs on A, the instance holding the thread.
    const pgid = await waitForPgid(home, 'READ');
    expect(ownerOf(pgid, instances)).toBe(a);
    release(home, 'READ');
    release(home, 'H1');
    await api.waitFor(() => answers().some((text) => text.includes('CONTENT passed-from-b 42')), 'the answer with the file’s content');
    expect(answers().some((text) => text.includes('could not fetch it'))).toBe(false);
  }, 120_000);
});

describe.runIf(runs)('web uploads posted to an instance that does not hold the thread', () => {
  let redis: TestRedis;
  let model: FakeOpenAI;
  let home: string;
  let token = '';
  const instances: GatewayProcess[] = [];

  const startWeb = async (): Promise<GatewayProcess> => {
    const port = await freePort();
    const gateway = spawnGateway(home, { [KEY_VAR]: 'sk-fake' }, ['--web-port', String(port)]);
    const instance: GatewayProcess = { port, ...gateway };
    instances.push(instance);
    await gatewayStarted(gateway, 'started web', 'the web instance');
    return instance;
  };
  const call = async (to: GatewayProcess, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`http://127.0.0.1:${to.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, unknown>;
  };

  beforeAll(async () => {
    redis = await startRedis();
    home = mkdtempSync(join(tmpdir(), 'hermes-files-across-web-'));
    model = await startFakeOpenAI({ fallback: readingModel(home) });
    writeFileSync(join(home, 'config.yaml'), configYaml(model, redis, []));
    // One at a time: the first makes the login token, the other finds it.
    await startWeb();
    await startWeb();
    token = readFileSync(join(home, 'web', 'token'), 'utf8').trim();
  }, 90_000);

  afterAll(async () => {
    for (const instance of instances) await stopGatewayProcess(instance);
    await model?.close();
    await redis?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 60_000);

  it('a file uploaded to B and sent in a message to B while A holds the thread is read by the script A runs', async () => {
    const [a, b] = instances;
    const threadId = String((await call(a, 'POST', '/api/threads')).id);
    await call(a, 'POST', `/api/threads/${threadId}/messages`, { text: 'hold on [WAIT:W1]' });
    expect(ownerOf(await waitForPgid(home, 'W1'), instances)).toBe(a);

    const uploaded = await fetch(`http://127.0.0.1:${b.port}/api/threads/${threadId}/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain', 'x-hermes-file-name': 'notes.txt', 'x-hermes-upload': '1' },
      body: 'uploaded-to-b 7\n',
    });
    expect(uploaded.status).toBe(201);
    const { upload } = (await uploaded.json()) as { upload: { id: string } };
    await call(b, 'POST', `/api/threads/${threadId}/messages`, { text: 'read this', files: [upload.id] });

    const pgid = await waitForPgid(home, 'READ');
    expect(ownerOf(pgid, instances)).toBe(a);
    release(home, 'READ');
    release(home, 'W1');
    const texts = async () => ((await call(a, 'GET', `/api/threads/${threadId}`)).entries as WebEntry[]).map((entry) => ('text' in entry ? String(entry.text) : ''));
    await until(async () => (await texts()).some((text) => text.includes('CONTENT uploaded-to-b 7')), 'the answer with the upload’s content', 60_000);
  }, 120_000);
});
