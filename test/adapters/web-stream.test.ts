import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebAdapter, type WebAdapter } from '../../adapters/web/index.js';
import { defaultConfig } from '../../src/config/index.js';
import { Gateway } from '../../src/gateway/index.js';
import type { WebEntry } from '../../adapters/web/types.js';
import { TranscriptStore } from '../../adapters/web/transcript.js';
import { interruptedNotice } from '../../src/shared/index.js';
import { FakeAgent, testConfig, until } from '../gateway/helpers.js';
import { removeHome, startStreamGateway, words, type StreamGateway } from '../fakes/stream-harness.js';
import { createServer } from 'node:net';

/*
 * The web chat behind the real gateway: the model's words land in one assistant entry while it
 * writes, a script's lines in its tool card while it runs, and the answer is that same entry.
 */
let home: string | undefined;
let adapter: WebAdapter | undefined;
let gateway: Gateway | undefined;

let gw: StreamGateway | undefined;

afterEach(async () => {
  await gw?.stop();
  if (gw) removeHome(gw.home);
  gw = undefined;
  await gateway?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
  home = adapter = gateway = undefined;
});

describe('web chat: streamed replies', () => {
  it('words appear in one entry before the answer ends, a script’s lines while it runs, and the answer is that entry', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-stream-'));
    const config = defaultConfig();
    config.platforms.web.port = 0;
    config.platforms.web.auth = 'none';
    adapter = createWebAdapter({ config, paths: { home, config: join(home, 'config.yaml'), env: join(home, '.env') } });
    let release: () => void = () => {};
    const gate = (): Promise<void> => new Promise((resolve) => (release = resolve));
    const seen: string[] = [];
    const agent = new FakeAgent(async (options) => {
      options.onEvent?.({ type: 'tool_started', callId: 'c1', name: 'execute_code', args: { code: 'print(1)' } });
      options.onEvent?.({ type: 'tool_output', callId: 'c1', name: 'execute_code', text: 'line one\n' });
      await gate();
      options.onEvent?.({ type: 'tool_finished', callId: 'c1', name: 'execute_code', result: { status: 'success', output: 'line one\nline two\n' }, durationMs: 5 });
      for (const piece of ['The ', 'answer ', 'is ']) options.onEvent?.({ type: 'text_delta', delta: piece });
      await gate();
      options.onEvent?.({ type: 'text_delta', delta: '42.' });
      options.onEvent?.({ type: 'text', text: 'The answer is 42.', final: true });
      return { text: 'The answer is 42.', status: 'completed' };
    });
    gateway = new Gateway({ agent, config: testConfig({ platforms: { web: { port: 0, auth: 'none' } } }) });
    gateway.register(adapter);
    await gateway.start();
    const base = adapter.url!;
    const thread = ((await (await fetch(`${base}api/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { id: string }).id;
    await fetch(`${base}api/threads/${thread}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'go' }) });
    const entries = async (): Promise<WebEntry[]> => ((await (await fetch(`${base}api/threads/${thread}`)).json()) as { entries: WebEntry[] }).entries;
    let now: WebEntry[] = [];
    await until(() => now.some((entry) => entry.kind === 'tool' && entry.status === 'running' && entry.output === 'line one\n') || (void entries().then((e) => (now = e)), false), 'the live line');
    release();
    await until(() => now.some((entry) => entry.kind === 'assistant' && entry.text === 'The answer is ') || (void entries().then((e) => (now = e)), false), 'the words so far');
    seen.push(...now.filter((entry) => entry.kind === 'assistant').map((entry) => entry.id));
    release();
    await gateway.idle();
    now = await entries();
    const answers = now.filter((entry) => entry.kind === 'assistant');
    expect(answers).toHaveLength(1);
    expect(answers[0].id).toBe(seen[0]);
    expect(answers[0].kind === 'assistant' && answers[0].text).toBe('The answer is 42.');
    const tool = now.find((entry) => entry.kind === 'tool');
    expect(tool?.kind === 'tool' && tool.output).toBe('line one\nline two\n');
  }, 30_000);

  it('an interrupted turn’s notice sits under that turn, above the message that interrupted it (live, and after a reload), and its tool card says so once', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-stream-'));
    const config = defaultConfig();
    config.platforms.web.port = 0;
    config.platforms.web.auth = 'none';
    adapter = createWebAdapter({ config, paths: { home, config: join(home, 'config.yaml'), env: join(home, '.env') } });
    const agent = new FakeAgent(async (options) => {
      if (options.text !== 'slow job') {
        options.onEvent?.({ type: 'text', text: `echo: ${options.text}`, final: true });
        return { text: `echo: ${options.text}`, status: 'completed' };
      }
      options.onEvent?.({ type: 'tool_started', callId: 'c1', name: 'execute_code', args: { code: 'import time; time.sleep(60)' } });
      options.onEvent?.({ type: 'tool_output', callId: 'c1', name: 'execute_code', text: 'napping\n' });
      const reason = await new Promise<string>((resolve) => options.signal?.addEventListener('abort', () => resolve(String(options.signal?.reason)), { once: true }));
      // What a session kernel's cell returns when it is interrupted: the notice ends the output and opens the error.
      const notice = interruptedNotice(reason);
      const result = { status: 'interrupted', output: `napping\n${notice}`, error: `${notice} The session kernel was killed and its state was lost.` };
      options.onEvent?.({ type: 'tool_finished', callId: 'c1', name: 'execute_code', result, durationMs: 5 });
      return { text: '', status: 'interrupted' };
    });
    gateway = new Gateway({ agent, config: testConfig({ platforms: { web: { port: 0, auth: 'none' } } }) });
    gateway.register(adapter);
    await gateway.start();
    const base = adapter.url!;
    const thread = ((await (await fetch(`${base}api/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { id: string }).id;
    // The page's event stream, read as it arrives: the last snapshot and the entries after it are what the page shows.
    const events = await fetch(`${base}api/threads/${thread}/events`);
    const shown: WebEntry[] = [];
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = buffer.slice(0, end).split('\n').find((line) => line.startsWith('data: '));
          buffer = buffer.slice(end + 2);
          if (!data) continue;
          const event = JSON.parse(data.slice(6)) as { type: string; entries?: WebEntry[]; entry?: WebEntry };
          if (event.type === 'snapshot') shown.splice(0, shown.length, ...event.entries!);
          if (event.type === 'entry') {
            const at = shown.findIndex((entry) => entry.id === event.entry!.id);
            if (at >= 0) shown[at] = event.entry!;
            else shown.push(event.entry!);
          }
        }
      }
    })();
    const post = (text: string) => fetch(`${base}api/threads/${thread}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
    await post('slow job');
    await until(() => shown.some((entry) => entry.kind === 'tool' && entry.status === 'running'), 'the running script');
    await post('never mind');
    await until(() => shown.some((entry) => entry.kind === 'assistant' && entry.text === 'echo: never mind'), 'the new answer');
    await gateway.idle();
    const order = (entries: WebEntry[]) => entries.map((entry) => (entry.kind === 'user' ? `user:${entry.text}` : entry.kind));
    const expected = ['user:slow job', 'tool', 'notice', 'user:never mind', 'assistant'];
    expect(order(shown)).toEqual(expected);
    await reader.cancel();
    const tool = shown.find((entry) => entry.kind === 'tool');
    expect(tool?.kind === 'tool' && tool.status).toBe('interrupted');
    // The card shows its output and, under it, the error: the notice once between them.
    const card = tool?.kind === 'tool' ? `${tool.output ?? ''}\n${tool.error ?? ''}` : '';
    expect(card.split('[execution interrupted').length - 1).toBe(1);
    expect(tool?.kind === 'tool' && tool.output).toBe('napping\n');
    // The thread as a reload (or a restart) reads it from disk.
    expect(order(new TranscriptStore(join(home, 'web', 'threads')).entries(thread))).toEqual(expected);
  }, 30_000);

  it('a 400-word answer from the fake model through hermes gateway is one entry that grows with each update (no copy), ending with the model text', async () => {
    const answer = words(400, 'web');
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    gw = await startStreamGateway('web', { port, auth: 'none' }, { ...process.env }, { replies: [{ text: answer, chunkChars: 12, paceMs: 8 }] });
    const base = `http://127.0.0.1:${port}/`;
    const json = { 'content-type': 'application/json' };
    const thread = ((await (await fetch(`${base}api/threads`, { method: 'POST', headers: json, body: '{}' })).json()) as { id: string }).id;
    const reader = (await fetch(`${base}api/threads/${thread}/events`)).body!.pipeThrough(new TextDecoderStream()).getReader();
    const updates: Array<{ at: number; entry: WebEntry }> = [];
    let buffer = '';
    const read = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = buffer.slice(0, end).split('\n').find((line) => line.startsWith('data: '));
          buffer = buffer.slice(end + 2);
          const event = data ? (JSON.parse(data.slice(6)) as { type: string; entry?: WebEntry }) : undefined;
          if (event?.type !== 'entry' || event.entry?.kind !== 'assistant') continue;
          updates.push({ at: Date.now(), entry: event.entry });
          if (event.entry.text === answer && !event.entry.streaming) return;
        }
      }
    })();
    await fetch(`${base}api/threads/${thread}/messages`, { method: 'POST', headers: json, body: JSON.stringify({ text: 'tell me a long story' }) });
    await read;
    await reader.cancel();
    await gw.running.gateway.idle();
    expect(new Set(updates.map((u) => u.entry.id)).size).toBe(1);
    const streamed = updates.filter((u) => u.entry.kind === 'assistant' && u.entry.streaming);
    expect(streamed.length).toBeGreaterThan(1);
    // Each update shows more of the answer than the one before, and is the answer's beginning.
    for (const [i, u] of streamed.entries()) {
      const text = u.entry.kind === 'assistant' ? u.entry.text : '';
      expect(answer.startsWith(text)).toBe(true);
      if (i > 0) expect(text.length).toBeGreaterThan((streamed[i - 1].entry as { text: string }).text.length);
    }
    const entries = ((await (await fetch(`${base}api/threads/${thread}`)).json()) as { entries: WebEntry[] }).entries;
    const answers = entries.filter((entry) => entry.kind === 'assistant');
    expect(answers).toHaveLength(1);
    expect(answers[0].kind === 'assistant' && answers[0].text).toBe(answer);
  }, 60_000);
});
