/*
 * Files both ways. Two figures:
 *   - a 10 MB file's arrival → in the session's workspace (uploads/), per backend, through the
 *     gateway's receiveAttachments and the environment's upload; baseline: copying the same
 *     file on this host (fs.copyFile), measured in the same run;
 *   - the gateway's peak memory above idle while it moves a 100 MB file: in from the Slack
 *     fake's url_private into uploads/ on local, and out through Slack's external upload flow.
 *     Both fakes stream (they serve from disk and only hash what arrives), so the figure is the
 *     gateway's own. The same through the web chat: the page's upload into uploads/, and a
 *     file the agent sends kept and downloaded. Target: ≤ 64 MB above idle (streamed, not buffered).
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { join } from 'node:path';
import { webApi } from '@slack/bolt';
import { sendSlackFile, slackAttachments } from '../adapters/slack/files.js';
import { createWebAdapter } from '../adapters/web/index.js';
import { defaultConfig } from '../src/config/index.js';
import { configSchema, hermesPaths } from '../src/config/index.js';
import { EnvironmentManager, findExecutable, loadProviderRegistry, type Environment } from '../src/environments/index.js';
import { downloadFrom } from '../src/environments/transfer/index.js';
import { receiveAttachments, type InboundAttachment } from '../src/gateway/index.js';
import { silentLogger } from '../src/shared/index.js';
import { FakeSlack } from '../test/fakes/slack-server.js';
import { TEST_IMAGE, testEngine } from '../test/helpers/container-engine.js';
import { startSshd, sshdUnavailable, type TestSshd } from '../test/helpers/sshd.js';
import { fmt, median } from './stats.js';

const MB = 1024 * 1024;
const RUNS = 7;

/** A file of `bytes` pseudo-random bytes (written in 1 MB blocks, so making it costs no memory). */
async function makeFile(path: string, bytes: number): Promise<string> {
  const block = createHash('sha512').update('hermes').digest();
  const chunk = Buffer.alloc(MB);
  for (let at = 0; at < MB; at += block.length) block.copy(chunk, at);
  await writeFile(path, (async function* () {
    for (let done = 0; done < bytes; done += MB) yield chunk.subarray(0, Math.min(MB, bytes - done));
  })());
  return path;
}

async function environmentFor(backend: string, home: string, cwd: string, terminal: Record<string, unknown> = {}): Promise<{ env: Environment; close: () => Promise<void> }> {
  // A terminal.cwd that does not exist falls back to the process's own folder: the bench must not fill the repository.
  await mkdir(cwd, { recursive: true });
  const config = configSchema.parse({ terminal: { backend, ...(backend === 'local' || backend === 'ssh' ? { cwd } : {}), ...terminal } });
  const paths = hermesPaths(home);
  const { registry } = await loadProviderRegistry({ config, paths });
  const manager = new EnvironmentManager({ config, paths, registry });
  const env = await manager.environmentFor(`bench-${backend}`);
  return { env, close: () => manager.closeAll() };
}

const fromFile = (path: string, name: string, size: number): InboundAttachment => ({ name, size, kind: 'document', open: async () => createReadStream(path) });

async function arrival(source: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hermes-bench-files-'));
  const copies: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await copyFile(source, join(dir, `copy-${i}`));
    copies.push(performance.now() - start);
  }
  const copyMs = median(copies);
  console.log(`10 MB arrival → uploads/ (median of ${RUNS})`);
  console.log(`  baseline fs.copyFile on this host   ${fmt(copyMs, 1)} ms`);
  // ssh to a sshd on this machine and docker on the engine the tests use, where they run here.
  let sshd: TestSshd | undefined;
  const backends: Array<[string, Record<string, unknown>]> = [['local', {}]];
  if (process.platform === 'linux' && findExecutable('bwrap')) backends.push(['sandbox', {}]);
  if (!sshdUnavailable()) {
    sshd = await startSshd();
    backends.push(['ssh', { ssh: { host: sshd.host, port: sshd.port, user: sshd.user, key: sshd.key } }]);
  } else console.log(`  ssh: not measured (${sshdUnavailable()})`);
  const engine = await testEngine();
  if (engine.engine) backends.push(['docker', { container_persistent: false, docker: { image: TEST_IMAGE } }]);
  else console.log(`  docker: not measured (${engine.why})`);
  for (const [backend, terminal] of backends) {
    const { env, close } = await environmentFor(backend, join(dir, `home-${backend}`), join(dir, `work-${backend}`), terminal);
    try {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const start = performance.now();
        const received = await receiveAttachments(env, [fromFile(source, `data-${i}.bin`, 10 * MB)], { maxBytes: 20 * MB, vision: false, signal: new AbortController().signal, logger: silentLogger() });
        if (received.lines.length !== 1) throw new Error(`bench files: the upload on ${backend} failed: ${received.refusals.join(' ')}`);
        times.push(performance.now() - start);
      }
      const ms = median(times);
      console.log(`  ${backend.padEnd(8)} ${fmt(ms, 1).padStart(8)} ms   ${fmt(ms / copyMs, 1)}x the copy   ${fmt(10 / (ms / 1000), 0)} MB/s`);
    } finally {
      await close();
    }
  }
  await sshd?.stop();
  await rm(dir, { recursive: true, force: true });
}

/** Runs `task` while sampling RSS every 5 ms; returns the peak above the RSS before it started. */
async function peakAbove(task: () => Promise<void>): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 200));
  const idle = process.memoryUsage.rss();
  let peak = idle;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    await task();
  } finally {
    clearInterval(timer);
  }
  return Math.max(0, peak - idle);
}

async function hundredMegabytes(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hermes-bench-100mb-'));
  const slack = await new FakeSlack().listen();
  const { env, close } = await environmentFor('local', join(dir, 'home'), join(dir, 'work'));
  try {
    const source = await makeFile(join(dir, 'big.bin'), 100 * MB);
    const client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, logLevel: webApi.LogLevel.ERROR });
    const shared = slack.addFile({ name: 'big.bin', mimetype: 'application/octet-stream', path: source, size: 100 * MB });
    const [attachment] = slackAttachments([shared as { id: string }], client, slack.botToken);
    const inbound = await peakAbove(async () => {
      const received = await receiveAttachments(env, [attachment], { maxBytes: 200 * MB, vision: false, signal: new AbortController().signal, logger: silentLogger() });
      if (received.lines.length !== 1) throw new Error(`bench files: the 100 MB download failed: ${received.refusals.join(' ')}`);
    });
    const outbound = await peakAbove(async () => {
      const download = () => downloadFrom(env, 'uploads/big.bin', { maxBytes: 200 * MB });
      const first = await download();
      await sendSlackFile(client, { channel: 'C1' }, { name: 'big.bin', mimeType: 'application/octet-stream', size: first.size, open: async () => first });
    });
    const [upload] = [...slack.uploads.values()];
    if (upload?.received !== 100 * MB) throw new Error(`bench files: the fake received ${upload?.received} bytes of the 100 MB upload`);
    console.log('100 MB through the gateway: peak RSS above idle (target ≤ 64 MB)');
    console.log(`  in:  Slack url_private → uploads/ (local)        ${fmt(inbound / MB, 1)} MB`);
    console.log(`  out: uploads/ → Slack external upload flow      ${fmt(outbound / MB, 1)} MB`);
    const web = await webHundred(join(dir, 'web'), env, source);
    console.log(`  in:  web chat upload → uploads/ (local)         ${fmt(web.inbound / MB, 1)} MB`);
    console.log(`  out: uploads/ → web chat, then its download      ${fmt(web.outbound / MB, 1)} MB`);
  } finally {
    await close();
    await slack.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** 100 MB through the web chat's HTTP surface: the page's upload and message, then a file the agent sends and its download. */
async function webHundred(home: string, env: Environment, source: string): Promise<{ inbound: number; outbound: number }> {
  const config = defaultConfig();
  config.platforms.web.port = 0;
  config.platforms.web.token = 'bench-token';
  config.files.max_inbound_mb = 200;
  const adapter = createWebAdapter({ config, paths: { home, config: join(home, 'config.yaml'), env: join(home, '.env') } });
  let saved: Promise<void> = Promise.resolve();
  const stop = new AbortController();
  await adapter.start(async (message) => {
    saved = receiveAttachments(env, message.attachments ?? [], { maxBytes: 200 * MB, vision: false, signal: stop.signal, logger: silentLogger() }).then((received) => {
      if (received.lines.length !== 1) throw new Error(`bench files: the web upload failed: ${received.refusals.join(' ')}`);
    });
  }, stop.signal);
  const headers = { authorization: 'Bearer bench-token' };
  const api = (path: string) => new URL(path, adapter.url).href;
  try {
    const thread = ((await (await fetch(api('/api/threads'), { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' })).json()) as { id: string }).id;
    const inbound = await peakAbove(async () => {
      // The page's upload, sent as node:http streams it (a fetch body from Readable.toWeb would read the whole file ahead on Node 20).
      const answer = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(api(`/api/threads/${thread}/uploads`), {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/octet-stream', 'x-hermes-upload': '1', 'x-hermes-file-name': 'web.bin', 'content-length': 100 * MB },
        }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text)).on('error', reject);
        });
        req.once('error', reject);
        createReadStream(source).pipe(req);
      });
      const { upload } = JSON.parse(answer) as { upload: { id: string } };
      await fetch(api(`/api/threads/${thread}/messages`), { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ text: '', files: [upload.id] }) });
      await saved;
    });
    const outbound = await peakAbove(async () => {
      await adapter.files.send({ threadKey: `web:${thread}`, threadId: thread }, { name: 'web.bin', mimeType: 'application/octet-stream', size: 100 * MB, open: () => downloadFrom(env, 'uploads/web.bin') });
      const entries = ((await (await fetch(api(`/api/threads/${thread}`), { headers })).json()) as { entries: Array<{ kind: string; url?: string }> }).entries;
      const url = entries.find((entry) => entry.kind === 'file')?.url;
      const download = await fetch(api(url ?? '/missing'), { headers });
      let bytes = 0;
      if (!download.body) throw new Error('bench files: the web download had no body');
      for await (const chunk of Readable.fromWeb(download.body as WebReadableStream<Uint8Array>)) bytes += (chunk as Buffer).length;
      if (bytes !== 100 * MB) throw new Error(`bench files: the web download gave ${bytes} bytes`);
    });
    return { inbound, outbound };
  } finally {
    stop.abort();
    await adapter.stop();
  }
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hermes-bench-src-'));
  try {
    await arrival(await makeFile(join(dir, 'ten.bin'), 10 * MB));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await hundredMegabytes();
}
