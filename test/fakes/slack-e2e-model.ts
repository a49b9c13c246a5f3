import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, type ConfigOverrides, type LoadedConfig } from '../../src/config/index.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply, type RecordedRequest } from './openai-server.js';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { groupAlive } from '../../src/environments/index.js';
import { waitForPid } from '../helpers/processes.js';

/**
 * The model's side of the chat-platform end-to-end tests (Slack and Discord share it). Users
 * write tags the fake model reacts to:
 * - `[SLOW:<name>]` → execute_code with a script that writes its process group id to
 *   `<dir>/<name>.pgid` and sleeps two minutes;
 * - `[WAIT:<name>]` → a script that writes `<name>.pgid`, waits for `<dir>/<name>.go`, prints `<name>-DONE`;
 * - `[LONG]` → a long answer with a code block, to be split;
 * - anything else → `echo: <text>`.
 * After a tool result the model answers `finished: <tool output>`.
 */
export function e2eModel(dir: string): FakeReply {
  return { respond: (request) => answer(dir, request) };
}

function answer(dir: string, request: RecordedRequest): FakeReply {
  const messages = request.body.messages;
  const last = messages[messages.length - 1];
  if (last.role === 'tool') return { text: `finished: ${String(last.content).slice(0, 200)}` };
  const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
  const slow = /\[SLOW:(\w+)\]/.exec(text);
  if (slow) return { toolCalls: [{ name: 'execute_code', arguments: { code: pgidScript(dir, slow[1]) + 'time.sleep(120)\n' } }] };
  const wait = /\[WAIT:(\w+)\]/.exec(text);
  if (wait) {
    const go = JSON.stringify(join(dir, `${wait[1]}.go`));
    const code = pgidScript(dir, wait[1]) + `while not os.path.exists(${go}):\n    time.sleep(0.05)\nprint('${wait[1]}-DONE')\n`;
    return { toolCalls: [{ name: 'execute_code', arguments: { code } }] };
  }
  if (text.includes('[LONG]')) return { text: longAnswer() };
  return { text: `echo: ${text}` };
}

function pgidScript(dir: string, name: string): string {
  const file = JSON.stringify(join(dir, `${name}.pgid`));
  // Written under another name and renamed, so the test never reads a half-written file.
  return `import os, time\nwith open(${file} + '.tmp', 'w') as f:\n    f.write(str(os.getpgrp()))\nos.replace(${file} + '.tmp', ${file})\n`;
}

/** About 7,000 characters: prose lines, then a 60-line code block, then a closing line. */
export function longAnswer(): string {
  const prose = Array.from({ length: 60 }, (_, i) => `Line ${i + 1}: the quick brown fox jumps over the lazy dog again and again.`);
  const code = Array.from({ length: 60 }, (_, i) => `print("row ${i + 1}", ${i} * ${i})  # a line of the script`);
  return [...prose, '```python', ...code, '```', 'The end.'].join('\n');
}

/** Waits until `<dir>/<name>.pgid` exists and returns the process group id in it. */
export async function waitForPgid(dir: string, name: string): Promise<number> {
  return waitForPid(join(dir, `${name}.pgid`), 60_000);
}

/** Lets a `[WAIT:<name>]` script finish. */
export function release(dir: string, name: string): void {
  writeFileSync(join(dir, `${name}.go`), 'go');
}

/** Waits until the process group is gone (the test's own timeout bounds the wait). */
export async function waitForGroupGone(pgid: number): Promise<void> {
  while (groupAlive(pgid)) await sleep(25);
}

/** A temporary HERMES_HOME and the loaded configuration for a gateway talking to fakes. */
export function e2eConfig(overrides: ConfigOverrides, env: NodeJS.ProcessEnv): { loaded: LoadedConfig; home: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'hermes-e2e-'));
  const settings = loadConfig({ home, overrides, loadEnv: false, env });
  // A copy the tests may still change before the start (the model's address): the snapshot is frozen.
  const loaded: LoadedConfig = { ...settings, config: structuredClone(settings.config) };
  return { loaded, home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

export interface E2eGateway {
  running: RunningGateway;
  model: FakeOpenAI;
  home: string;
  cleanup: () => void;
}

const PLATFORMS = ['slack', 'discord', 'telegram', 'web'] as const;

/**
 * `hermes gateway` as the CLI starts it, with only `platform` enabled (with `settings`), a
 * fresh HERMES_HOME, and the fake model playing `e2eModel`. The caller stops all three.
 */
export async function startE2eGateway(
  platform: 'slack' | 'discord' | 'telegram',
  settings: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  keyVar: string,
): Promise<E2eGateway> {
  const platforms = Object.fromEntries(PLATFORMS.map((name) => [name, name === platform ? settings : { enabled: false }]));
  // The scripts write their process group to HERMES_HOME: on the host, not in a sandbox (test/adapters/platform-backend-e2e.test.ts covers that).
  // Whole replies (chat.postMessage, sendMessage): streamed replies have their own tests (*-stream.test.ts).
  const made = e2eConfig({ model: { base_url: 'http://127.0.0.1:9/v1', name: 'fake-model', api_key_env: keyVar, stream: false }, platforms, terminal: { platform_backend: 'local' } }, env);
  const model = await startFakeOpenAI({ fallback: e2eModel(made.home) });
  made.loaded.config.model.base_url = model.url;
  // Loaded here, not at the top: the fakes stay importable without the CLI's modules.
  const { startGateway } = await import('../../src/cli/commands/gateway.js');
  const running = await startGateway(made.loaded, { env });
  return { running, model, home: made.home, cleanup: made.cleanup };
}

/** The model request whose messages end with the user text containing `tag`. */
export function requestFor(requests: RecordedRequest[], tag: string): RecordedRequest | undefined {
  return requests.find((request) => {
    const last = request.body.messages[request.body.messages.length - 1];
    return last.role === 'user' && String(last.content).includes(tag);
  });
}

/** The tool results the model was sent with the user message tagged `tag`. */
export function toolResultsFor(requests: RecordedRequest[], tag: string): string[] {
  const request = requestFor(requests, tag);
  return request?.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)) ?? [];
}
