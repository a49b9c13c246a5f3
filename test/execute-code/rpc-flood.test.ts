import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { DEFAULT_MAX_RPC_CONNECTIONS } from '../../src/execute-code/rpc/server.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply, type RecordedRequest } from '../fakes/openai-server.js';
import { e2eConfig } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';

/*
 * The attack of issue 11: a script opens 20,000 connections to its RPC socket. Before the
 * cap every accepted connection was a file descriptor of the gateway, and every platform
 * failed with EMFILE. Here the whole gateway runs (`hermes gateway`'s startGateway) with the
 * web chat and Telegram (the real grammY client against the fake Bot API); the script is
 * started from the web chat by the fake model, through the real executor and real Python,
 * and both platforms must answer while it floods and while it holds what it got.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;
if (!hasPython && process.env.CI !== 'true') console.log('RPC flood test skipped: python3 is not installed');

const KEY_VAR = 'HERMES_FLOOD_TEST_KEY';
const ADA = 1001;
const ATTEMPTS = 20_000;

/** The hostile script: raise its own descriptor limit, connect until refused (20,000 tries), hold the rest. */
function floodScript(sync: string): string {
  const at = (name: string) => JSON.stringify(join(sync, name));
  return `
import os, socket, resource, select, json, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
path = os.environ["HERMES_RPC_SOCKET"]
held, refused, failed, refusal = [], 0, {}, None
poller = select.poll()
def reap(timeout):
    # Refused connections get one JSON line and the end of the stream: read it, close ours.
    global refused, refusal
    for fd, _ in poller.poll(timeout):
        s = next(x for x in held if x.fileno() == fd)
        poller.unregister(fd); held.remove(s)
        line = s.recv(4096); s.close(); refused += 1
        if refusal is None: refusal = json.loads(line.split(b"\\n")[0])["error"]
for i in range(${ATTEMPTS}):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError as e:
        failed[e.errno] = failed.get(e.errno, 0) + 1; s.close(); continue
    held.append(s); poller.register(s, select.POLLIN)
    if i == 1000: open(${at('started')}, "w").close()
    if i % 100 == 99: reap(0)
# The last refusals may still be on their way: wait until every attempt is accounted for or held quietly.
while True:
    before = refused
    reap(500)
    if refused == before: break
with open(${at('holding.tmp')}, "w") as f:
    json.dump({"held": len(held), "refused": refused, "failed": failed, "limit": hard}, f)
os.replace(${at('holding.tmp')}, ${at('holding')})
while not os.path.exists(${at('release')}): time.sleep(0.05)
for s in held: s.close()
print(json.dumps({"held": len(held), "refused": refused, "failed": failed, "refusal": refusal}))
`;
}

/** The fake model: `[FLOOD]` runs the script; after a tool result it reports it; else it echoes. */
function floodModel(sync: string): FakeReply {
  return {
    respond: (request: RecordedRequest): FakeReply => {
      const last = request.body.messages[request.body.messages.length - 1];
      if (last.role === 'tool') {
        const content = String(last.content);
        // The script's one line of JSON, inside the tool result's JSON (where its newline is \n).
        const output = /\{"held".*?\}(?=\\n)/.exec(content.replace(/\\"/g, '"'))?.[0];
        return { text: `flood result: ${output ?? content}` };
      }
      const text = String(last.content);
      if (text.includes('[FLOOD]')) return { toolCalls: [{ name: 'execute_code', arguments: { code: floodScript(sync) } }] };
      return { text: `echo: ${text}` };
    },
  };
}

const openDescriptors = () => readdirSync('/proc/self/fd').length;

let api: FakeTelegramApi | undefined;
let model: FakeOpenAI | undefined;
let running: RunningGateway | undefined;
let cleanup: (() => void) | undefined;
let sync: string | undefined;
afterEach(async () => {
  if (sync) writeFileSync(join(sync, 'release'), '');
  await running?.stop();
  await model?.close();
  await api?.close();
  cleanup?.();
  if (sync) rmSync(sync, { recursive: true, force: true });
  running = model = api = cleanup = sync = undefined;
});

describe.runIf(hasPython || process.env.CI === 'true')('20,000 RPC connections from one script', () => {
  it('are refused past the cap while the web chat and Telegram keep answering, and the gateway keeps its descriptors', async () => {
    sync = mkdtempSync(join(tmpdir(), 'hermes-flood-sync-'));
    api = await new FakeTelegramApi().start();
    const env: NodeJS.ProcessEnv = { ...process.env, [KEY_VAR]: 'sk-fake', TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) };
    for (const name of ['SLACK_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'TELEGRAM_WEBHOOK_URL', 'GATEWAY_ALLOW_ALL_USERS']) delete env[name];
    const made = e2eConfig(
      {
        model: { base_url: 'http://127.0.0.1:9/v1', name: 'fake-model', api_key_env: KEY_VAR },
        platforms: { telegram: { api_root: api.apiRoot }, slack: { enabled: false }, discord: { enabled: false }, web: { port: 0 } },
      },
      env,
    );
    cleanup = made.cleanup;
    model = await startFakeOpenAI({ fallback: floodModel(sync) });
    made.loaded.config.model.base_url = model.url;
    const printed: string[] = [];
    const { startGateway } = await import('../../src/cli/commands/gateway.js');
    running = await startGateway(made.loaded, { env, print: (line) => printed.push(line) });
    expect(running.report.started.sort()).toEqual(['telegram', 'web']);
    const openUrl = new URL(/web chat: (\S+)/.exec(printed.join('\n'))![1]);
    const base = openUrl.origin + '/';
    const auth = { authorization: `Bearer ${openUrl.searchParams.get('token')}`, 'content-type': 'application/json' };

    const web = async (path: string, body?: unknown) => {
      const response = await fetch(base + path, { method: body ? 'POST' : 'GET', headers: auth, body: body ? JSON.stringify(body) : undefined });
      expect(response.status, `${path}: ${response.status}`).toBeLessThan(300);
      return (await response.json()) as Record<string, unknown>;
    };
    const newThread = async () => String((await web('api/threads', {})).id);
    const assistantSaid = async (thread: string) =>
      ((await web(`api/threads/${thread}`)).entries as Array<{ kind: string; text: string }>).filter((entry) => entry.kind === 'assistant').map((entry) => entry.text);
    const answered = async (thread: string, text: string) => {
      while (!(await assistantSaid(thread)).some((said) => said.includes(text))) await sleep(50);
    };

    const baseline = openDescriptors();
    let mostDescriptors = baseline;
    const sampler = setInterval(() => (mostDescriptors = Math.max(mostDescriptors, openDescriptors())), 25);
    const floodThread = await newThread();
    try {
      await web(`api/threads/${floodThread}/messages`, { text: 'open every connection you can [FLOOD]' });
      while (!existsSync(join(sync, 'started'))) await sleep(20);

      // While the script floods: a Telegram chat and another web chat thread get their answers.
      api.injectMessage({ chatId: ADA, userId: ADA, text: 'hello during the flood' });
      const otherThread = await newThread();
      await web(`api/threads/${otherThread}/messages`, { text: 'are you there?' });
      await api.waitFor(() => api!.sentTo(ADA).some((sent) => sent.text === 'echo: hello during the flood'), 'the Telegram answer');
      await answered(otherThread, 'echo: are you there?');

      // While it holds every connection it was given: both answer again.
      while (!existsSync(join(sync, 'holding'))) await sleep(20);
      mostDescriptors = Math.max(mostDescriptors, openDescriptors());
      api.injectMessage({ chatId: ADA, userId: ADA, text: 'still there?' });
      await web(`api/threads/${otherThread}/messages`, { text: 'and now?' });
      await api.waitFor(() => api!.sentTo(ADA).some((sent) => sent.text === 'echo: still there?'), 'the second Telegram answer');
      await answered(otherThread, 'echo: and now?');
    } finally {
      clearInterval(sampler);
      writeFileSync(join(sync, 'release'), '');
    }

    // Open connections are descriptors of the gateway: the cap, plus the platforms' own and a
    // burst being refused, never the thousands the script asked for.
    expect(mostDescriptors - baseline).toBeLessThan(DEFAULT_MAX_RPC_CONNECTIONS + 600);

    await answered(floodThread, 'flood result: ');
    const said = (await assistantSaid(floodThread)).find((text) => text.startsWith('flood result: '))!;
    const report = JSON.parse(said.slice('flood result: '.length)) as { held: number; refused: number; failed: Record<string, number>; refusal: string };
    expect(report.held).toBe(DEFAULT_MAX_RPC_CONNECTIONS);
    expect(report.refused + report.held + Object.values(report.failed).reduce((a, b) => a + b, 0)).toBe(ATTEMPTS);
    expect(report.refused).toBeGreaterThan(ATTEMPTS - DEFAULT_MAX_RPC_CONNECTIONS - 100);
    expect(report.refusal).toMatch(/^RPC connection refused: this execution already has 64 connections open \(code_execution\.max_rpc_connections\)/);
  }, 180_000);
});
