import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/environments/index.js';
import { KERNEL_MOVED_NOTE, KERNEL_MOVED_NOTICE } from '../../src/shared/notices.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel, requestFor, waitForPgid } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { builtCli } from '../helpers/hermes-process.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { until } from './helpers.js';

/*
 * Two `hermes gateway` processes (the built CLI; `npm test` builds first) on one Redis and one
 * HERMES_HOME. One is killed with SIGKILL mid-turn; the other answers what comes next.
 */
const missingRedis = redisSkipReason('the instance-killed end-to-end test');
const built = existsSync(builtCli);
const hasPython = spawnSync('python3', ['--version']).status === 0;
const why = !built ? 'dist/ is not built (npm run build)' : !hasPython ? 'python3 is not installed' : undefined;
if (why && process.env.CI !== 'true') console.warn(`the instance-killed end-to-end test cannot run here: ${why}`);
const runs = !missingRedis && (!why || process.env.CI === 'true');

const KEY_VAR = 'HERMES_SCALE_OUT_KILL_KEY';
const SECRET = 'hook-secret';
const ADA = 1001;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** The pid's parent, read from /proc (the field after the parenthesised command name). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Which of the instances has `pid` among its descendants. */
function ownerOf(pid: number, instances: Instance[]): Instance | undefined {
  for (let at: number | undefined = pid; at && at > 1; at = parentOf(at)) {
    const owner = instances.find((instance) => instance.child.pid === at);
    if (owner) return owner;
  }
  return undefined;
}

interface Instance {
  port: number;
  child: ChildProcess;
  output: () => string;
}

describe.runIf(runs)('an instance killed mid-turn (two gateway processes on one Redis and one state.db)', () => {
  let redis: TestRedis;
  let api: FakeTelegramApi;
  let model: FakeOpenAI;
  let home: string;
  const instances: Instance[] = [];
  const orphans: number[] = [];
  let updateId = 0;

  const send = (to: Instance, text: string) =>
    new Promise<number>((resolve, reject) => {
      updateId += 1;
      const body = JSON.stringify({
        update_id: updateId,
        message: { message_id: updateId, date: 1, chat: { id: ADA, type: 'private', first_name: 'Ada' }, from: { id: ADA, is_bot: false, first_name: 'Ada' }, text },
      });
      const req = request(
        { host: '127.0.0.1', port: to.port, path: '/hook', method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const answers = () => api.sentTo(ADA).map((sent) => sent.text).filter((text) => !text.startsWith('⚙️'));

  const startInstance = async (): Promise<Instance> => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) if (/^(TELEGRAM|SLACK|DISCORD)_/.test(key) || key === 'GATEWAY_ALLOW_ALL_USERS' || key === 'REDIS_URL') delete env[key];
    Object.assign(env, {
      [KEY_VAR]: 'sk-fake',
      TELEGRAM_BOT_TOKEN: api.token,
      TELEGRAM_ALLOWED_USERS: String(ADA),
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
      TELEGRAM_WEBHOOK_PORT: String(port),
      TELEGRAM_WEBHOOK_SECRET: SECRET,
    });
    let output = '';
    const child = spawn(process.execPath, [builtCli, '--home', home, 'gateway'], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const instance = { port, child, output: () => output };
    instances.push(instance);
    await until(() => output.includes('started telegram') || child.exitCode !== null, 'the gateway to start', 30_000);
    if (!output.includes('started telegram')) throw new Error(`hermes gateway did not start: ${output}`);
    return instance;
  };

  beforeAll(async () => {
    redis = await startRedis();
    api = await new FakeTelegramApi().start();
    home = mkdtempSync(join(tmpdir(), 'hermes-scale-out-kill-'));
    model = await startFakeOpenAI({ fallback: e2eModel(home) });
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'model:',
        `  base_url: ${model.url}`,
        '  name: fake-model',
        `  api_key_env: ${KEY_VAR}`,
        'platforms:',
        '  telegram:',
        `    api_root: ${api.apiRoot}`,
        '  web:',
        '    enabled: false',
        'terminal:',
        '  platform_backend: local',
        'cron:',
        '  enabled: false',
        'coordination:',
        '  backend: redis',
        `  redis_url: ${redis.url}`,
        '  lease_seconds: 1',
        '',
      ].join('\n'),
    );
  }, 30_000);

  afterAll(async () => {
    for (const instance of instances) {
      if (instance.child.exitCode === null && instance.child.signalCode === null) {
        const exited = new Promise((resolve) => instance.child.once('exit', resolve));
        instance.child.kill('SIGTERM');
        await exited;
      }
    }
    // The killed gateway's script outlived it: its group is this test's own descendant.
    for (const pgid of orphans) if (pgid > 1 && groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    await model?.close();
    await api?.close();
    await redis?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 30_000);

  it('after SIGKILL of the instance running a turn, the next message, sent to the other, is answered there with the whole history', async () => {
    const a = await startInstance();
    const b = await startInstance();
    expect(await send(a, 'remember the word PLUM [H1]')).toBe(200);
    await api.waitFor(() => answers().length === 1, 'the first answer');
    expect(await send(b, 'work on it [SLOW:K]')).toBe(200);
    const pgid = await waitForPgid(home, 'K');
    orphans.push(pgid);
    // B hands the turn to A when A still holds the thread from [H1]: kill whichever runs the script.
    const running = ownerOf(pgid, [a, b]);
    expect(running, 'the script runs under one of the two gateways').toBeDefined();
    const other = running === a ? b : a;
    const killed = new Promise((resolve) => running!.child.once('exit', resolve));
    running!.child.kill('SIGKILL');
    await killed;
    // Sent at once, while the dead one's lease and heartbeat still stand: the other waits it out and answers.
    expect(await send(other, 'what was the word? [AFTER]')).toBe(200);
    await api.waitFor(() => answers().some((text) => text.includes('[AFTER]')), 'the answer after the kill');
    const users = requestFor(model.requests, '[AFTER]')?.body.messages.filter((m) => m.role === 'user').map((m) => String(m.content));
    // The killed instance's kernel ran the script: the model is told its state is gone, in this turn's note.
    expect(users).toEqual(['remember the word PLUM [H1]', 'work on it [SLOW:K]', `${KERNEL_MOVED_NOTE}\n\nwhat was the word? [AFTER]`]);
    expect(answers().filter((text) => text.includes('[AFTER]'))).toHaveLength(1);
    // And so is the person: once, before the answer.
    expect(answers().filter((text) => text === KERNEL_MOVED_NOTICE)).toHaveLength(1);
    expect(answers().indexOf(KERNEL_MOVED_NOTICE)).toBeLessThan(answers().findIndex((text) => text.includes('[AFTER]')));
  }, 90_000);
});
