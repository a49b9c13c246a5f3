import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveEvent, WebEntry } from '../../adapters/web/index.js';
import { groupAlive } from '../../src/environments/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel, requestFor, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';
import { hermes } from '../helpers/hermes-process.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { freePort, gatewayStarted, ownerOf, processesMissing, spawnGateway, stopGatewayProcess, type GatewayProcess } from './gateway-processes.js';
import { until } from './helpers.js';

/*
 * Three `hermes gateway` processes (the built CLI; `npm test` builds first) on one Redis and
 * one HERMES_HOME serve one web chat, as behind a load balancer that sends each request to
 * any of them: a page posts to one, follows its live stream on another, while the thread's
 * turn runs on a third.
 */
const missingRedis = redisSkipReason('the web chat across instances test');
const missing = processesMissing();
if (missing && process.env.CI !== 'true') console.warn(`the web chat across instances test cannot run here: ${missing}`);
const runs = !missingRedis && (!missing || process.env.CI === 'true');

const KEY_VAR = 'HERMES_WEB_INSTANCES_KEY';

interface WebInstance extends GatewayProcess {
  name: string;
  /** The address it printed, with the token. */
  openUrl: string;
}

/** One page's event stream (server-sent events, read with fetch as EventSource would). */
class LiveStream {
  readonly events: LiveEvent[] = [];
  private readonly stopping = new AbortController();

  constructor(
    readonly instance: WebInstance,
    private readonly token: string,
    private readonly threadId: string,
  ) {}

  /** Resolves once the snapshot arrived (the stream follows the thread from then on). */
  async open(): Promise<void> {
    const response = await fetch(`http://127.0.0.1:${this.instance.port}/api/threads/${this.threadId}/events`, {
      headers: { authorization: `Bearer ${this.token}`, accept: 'text/event-stream' },
      signal: this.stopping.signal,
    });
    if (response.status !== 200 || !response.body) throw new Error(`the event stream on ${this.instance.name} answered ${response.status}`);
    void this.read(response.body).catch(() => undefined);
    await until(() => this.events.some((event) => event.type === 'snapshot'), `the snapshot on ${this.instance.name}`, 30_000);
  }

  close(): void {
    this.stopping.abort();
  }

  /** The entries as the page shows them: the last snapshot, with every later entry event laid over it. */
  shown(): WebEntry[] {
    const shown: WebEntry[] = [];
    for (const event of this.events) {
      if (event.type === 'snapshot') shown.splice(0, shown.length, ...event.entries);
      if (event.type !== 'entry') continue;
      const at = shown.findIndex((entry) => entry.id === event.entry.id);
      if (at >= 0) shown[at] = event.entry;
      else shown.push(event.entry);
    }
    return shown;
  }

  /** The last busy state heard (from a snapshot or a busy event). */
  busy(): boolean | undefined {
    const last = this.events.findLast((event) => event.type === 'busy' || event.type === 'snapshot');
    return last && (last.type === 'busy' || last.type === 'snapshot') ? last.busy : undefined;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data) this.events.push(JSON.parse(data) as LiveEvent);
      }
    }
  }
}

describe.runIf(runs)('the web chat behind a load balancer: three gateway instances on one Redis and one HERMES_HOME', () => {
  let redis: TestRedis;
  let model: FakeOpenAI;
  let home: string;
  let token = '';
  const instances: WebInstance[] = [];
  const streams: LiveStream[] = [];
  const groups: number[] = [];
  let a: WebInstance;
  let b: WebInstance;
  let c: WebInstance;

  const api = async (to: WebInstance, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const response = await fetch(`http://127.0.0.1:${to.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const post = (to: WebInstance, threadId: string, text: string) => api(to, 'POST', `/api/threads/${threadId}/messages`, { text });
  const newThread = async (on: WebInstance): Promise<string> => String((await api(on, 'POST', '/api/threads')).json.id);
  const entriesOn = async (on: WebInstance, threadId: string) => (await api(on, 'GET', `/api/threads/${threadId}`)).json.entries as WebEntry[];
  const follow = async (on: WebInstance, threadId: string): Promise<LiveStream> => {
    const stream = new LiveStream(on, token, threadId);
    streams.push(stream);
    await stream.open();
    return stream;
  };
  const texts = (entries: WebEntry[]) => entries.map((entry) => `${entry.kind}:${'text' in entry ? entry.text : entry.kind === 'tool' ? entry.status : ''}`);

  const startInstance = async (name: string): Promise<WebInstance> => {
    const port = await freePort();
    // Each instance gets its own web chat port; config.yaml is the one they share.
    const gateway = spawnGateway(home, { [KEY_VAR]: 'sk-fake' }, ['--web-port', String(port)]);
    const instance: WebInstance = { name, port, ...gateway, openUrl: '' };
    instances.push(instance);
    await gatewayStarted(gateway, 'started web', `hermes gateway ${name}`);
    instance.openUrl = /web chat: (http\S+)/.exec(gateway.output())?.[1] ?? '';
    return instance;
  };

  beforeAll(async () => {
    redis = await startRedis();
    home = mkdtempSync(join(tmpdir(), 'hermes-web-instances-'));
    model = await startFakeOpenAI({ fallback: e2eModel(home) });
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'model:',
        `  base_url: ${model.url}`,
        '  name: fake-model',
        `  api_key_env: ${KEY_VAR}`,
        'terminal:',
        '  backend: local',
        'cron:',
        '  enabled: false',
        'coordination:',
        '  backend: redis',
        `  redis_url: ${redis.url}`,
        '  lease_seconds: 2',
        '',
      ].join('\n'),
    );
    // One at a time: the first makes the login token, the others find it.
    a = await startInstance('A');
    b = await startInstance('B');
    c = await startInstance('C');
    token = readFileSync(join(home, 'web', 'token'), 'utf8').trim();
  }, 120_000);

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await Promise.all(instances.map((instance) => stopGatewayProcess(instance)));
    for (const pgid of groups) if (pgid > 1 && groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    await model?.close();
    await redis?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 60_000);

  it('every instance logs in with the one token kept in HERMES_HOME/web/token (0600)', async () => {
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(join(home, 'web', 'token')).mode & 0o777).toBe(0o600);
    for (const instance of [a, b, c]) {
      expect(new URL(instance.openUrl).searchParams.get('token'), instance.name).toBe(token);
      expect((await api(instance, 'GET', '/api/threads')).status, instance.name).toBe(200);
    }
  });

  let storyThread = '';

  it('a message posted to B while the thread runs on A interrupts it there (the script’s group dies), and a page following on C hears all of it live, the answer from A included', async () => {
    storyThread = await newThread(b);
    const onC = await follow(c, storyThread);
    expect((await post(a, storyThread, 'work on it [SLOW:W1]')).status).toBe(202);
    const pgid = await waitForPgid(home, 'W1');
    groups.push(pgid);
    expect(ownerOf(pgid, [a, b, c])?.name, 'the script runs under A').toBe('A');
    await until(() => onC.busy() === true && onC.shown().some((entry) => entry.kind === 'tool' && entry.status === 'running'), 'C to hear the turn and its running script', 30_000);
    // C knows the turn runs elsewhere: a reload there shows it busy, and it refuses to delete the thread.
    expect((await api(c, 'GET', `/api/threads/${storyThread}`)).json.busy).toBe(true);
    expect((await api(c, 'DELETE', `/api/threads/${storyThread}`)).status).toBe(409);
    // …and a reload on B or C shows the script as running, not as left over by a stopped gateway.
    for (const instance of [b, c]) {
      expect((await entriesOn(instance, storyThread)).find((entry) => entry.kind === 'tool'), instance.name).toMatchObject({ status: 'running' });
    }

    expect((await post(b, storyThread, 'hello [B1]')).status).toBe(202);
    await waitForGroupGone(pgid);
    await until(() => onC.shown().some((entry) => entry.kind === 'assistant' && entry.text.startsWith('echo:') && entry.text.includes('hello [B1]')), 'the answer on C', 30_000).catch((error: unknown) => {
      throw new Error(`${String(error)}; C heard ${JSON.stringify(onC.events)}; on A: ${JSON.stringify(a.output())}`);
    });
    await until(() => onC.busy() === false, 'C to hear the turn end', 30_000);
    expect(texts(onC.shown())).toEqual([
      'user:work on it [SLOW:W1]',
      'tool:interrupted',
      // Under the turn it ended, above the message (recorded by B) that interrupted it.
      'notice:Turn interrupted — the agent stopped working on this message.',
      'user:hello [B1]',
      expect.stringMatching(/^assistant:echo: .*hello \[B1\]$/s),
    ]);
    // The answer was A's: the thread was there, with its whole history.
    const users = requestFor(model.requests, '[B1]')?.body.messages.filter((m) => m.role === 'user').map((m) => String(m.content));
    expect(users).toEqual(['work on it [SLOW:W1]', expect.stringContaining('hello [B1]')]);
    expect(model.requests.filter((request) => JSON.stringify(request.body.messages.at(-1)).includes('[B1]'))).toHaveLength(1);
  }, 90_000);

  it('a reload on any instance shows the whole transcript, the same on each (what A, B and C each wrote)', async () => {
    const onA = await entriesOn(a, storyThread);
    expect(texts(onA)).toHaveLength(5);
    expect(await entriesOn(b, storyThread)).toEqual(onA);
    expect(await entriesOn(c, storyThread)).toEqual(onA);
    const reopened = await follow(a, storyThread);
    expect(reopened.shown()).toEqual(onA);
    reopened.close();
  });

  it('Stop pressed on a page served by C kills the script the thread runs on A (its process group is dead), and a page on B hears the turn end', async () => {
    const thread = await newThread(c);
    const onB = await follow(b, thread);
    expect((await post(a, thread, 'count to a million [SLOW:S1]')).status).toBe(202);
    const pgid = await waitForPgid(home, 'S1');
    groups.push(pgid);
    expect(ownerOf(pgid, [a, b, c])?.name, 'the script runs under A').toBe('A');
    await until(() => onB.busy() === true, 'B to hear the turn start', 30_000);
    await until(async () => (await api(c, 'GET', `/api/threads/${thread}`)).json.busy === true, 'C to know the thread is busy elsewhere', 30_000);
    // The page's Stop button sends /stop as a message.
    expect((await post(c, thread, '/stop')).status).toBe(202);
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
    await until(() => onB.busy() === false, 'B to hear the turn end', 30_000);
    await until(() => onB.shown().some((entry) => entry.kind === 'tool' && entry.status === 'interrupted'), 'the script card on B to say interrupted', 30_000);
    expect(model.requests.some((request) => JSON.stringify(request.body.messages.at(-1)).includes('/stop'))).toBe(false);
  }, 90_000);

  it('thread lists, renames and deletes agree across the instances, and a page open on A leaves a thread deleted on C', async () => {
    const listed = async (on: WebInstance) => ((await api(on, 'GET', '/api/threads')).json.threads as Array<{ id: string; title: string }>).map((thread) => `${thread.id}:${thread.title}`);
    expect((await api(b, 'PATCH', `/api/threads/${storyThread}`, { title: 'The plum story' })).status).toBe(200);
    const onB = await listed(b);
    expect(onB).toContain(`${storyThread}:The plum story`);
    expect(await listed(a)).toEqual(onB);
    expect(await listed(c)).toEqual(onB);
    expect((await api(a, 'GET', '/api/threads?q=plum')).json.threads).toMatchObject([{ id: storyThread }]);

    const onA = await follow(a, storyThread);
    expect((await api(c, 'DELETE', `/api/threads/${storyThread}`)).status).toBe(200);
    await until(() => onA.events.some((event) => event.type === 'deleted'), 'the page on A to hear the thread is gone', 30_000);
    for (const instance of [a, b, c]) {
      expect((await api(instance, 'GET', `/api/threads/${storyThread}`)).status, instance.name).toBe(404);
      expect((await listed(instance)).some((line) => line.startsWith(`${storyThread}:`)), instance.name).toBe(false);
    }
  });

  it('model settings saved on one instance are the settings of all: B and C answer with the new model', async () => {
    const saved = await api(a, 'POST', '/api/settings', { provider: 'custom', baseUrl: model.url, model: 'fake-model-2', apiKey: 'sk-second' });
    expect(saved.status, JSON.stringify(saved.json)).toBe(200);
    for (const instance of [b, c]) {
      await until(async () => (await api(instance, 'GET', '/api/settings')).json.model === 'fake-model-2', `${instance.name} to read the saved settings`, 30_000);
      expect((await api(instance, 'GET', '/api/settings')).json).toMatchObject({ model: 'fake-model-2', apiKeyEnv: 'MODEL_API_KEY', keySet: true });
    }
    const thread = await newThread(c);
    const onB = await follow(b, thread);
    expect((await post(c, thread, 'which model [M2]')).status).toBe(202);
    await until(() => onB.shown().some((entry) => entry.kind === 'assistant' && entry.text.includes('[M2]')), 'the answer on B', 30_000);
    expect(requestFor(model.requests, '[M2]')?.body.model).toBe('fake-model-2');
  }, 60_000);
});

describe('hermes gateway --web-port: each instance on one HERMES_HOME its own web chat port', () => {
  it('refuses what is not a port number, naming the option, before anything starts', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-web-port-'));
    try {
      for (const bad of ['abc', '65536', '-1', '80.5']) {
        const run = await hermes(home, ['gateway', '--web-port', bad]);
        expect(run.code, bad).not.toBe(0);
        expect(run.stderr, bad).toContain(`'--web-port <port>' argument '${bad}' is invalid`);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});
