import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { builtCli } from '../helpers/hermes-process.js';
import { until } from './helpers.js';

/*
 * `hermes gateway` processes (the built CLI; `npm test` builds first) sharing one HERMES_HOME and
 * one Redis, each with its own Telegram webhook port, for the several-instances tests.
 */

export const WEBHOOK_SECRET = 'hook-secret';

/** Why these tests cannot run here (printed by the caller), or undefined. Under CI=true nothing skips. */
export function processesMissing(): string | undefined {
  if (!existsSync(builtCli)) return 'dist/ is not built (npm run build)';
  if (spawnSync('python3', ['--version']).status !== 0) return 'python3 is not installed';
  return undefined;
}

/** Where the instances of a test find the fakes and Redis. */
export interface InstanceEndpoints {
  modelUrl: string;
  /** The variable that holds the fake model's key. */
  keyVar: string;
  telegramApiRoot: string;
  redisUrl: string;
}

type ConfigTree = { [key: string]: ConfigTree | string | number | boolean };

function merged(base: ConfigTree, overrides: ConfigTree): ConfigTree {
  const out: ConfigTree = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const under = out[key];
    out[key] = typeof value === 'object' && typeof under === 'object' ? merged(under, value) : value;
  }
  return out;
}

/**
 * The config.yaml the instances share: the fake model and Telegram API, scripts on the host, no
 * web chat, no jobs, coordination on Redis; `overrides` merged in (`{ cron: { enabled: true } }`).
 */
export function writeInstancesConfig(home: string, endpoints: InstanceEndpoints, overrides: ConfigTree = {}): void {
  const base: ConfigTree = {
    model: { base_url: endpoints.modelUrl, name: 'fake-model', api_key_env: endpoints.keyVar },
    platforms: { telegram: { api_root: endpoints.telegramApiRoot }, web: { enabled: false } },
    terminal: { platform_backend: 'local' },
    cron: { enabled: false },
    coordination: { backend: 'redis', redis_url: endpoints.redisUrl },
  };
  writeFileSync(join(home, 'config.yaml'), stringify(merged(base, overrides)));
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

export interface GatewayProcess {
  port: number;
  child: ChildProcess;
  output: () => string;
}

/** A spawned `hermes gateway` and what it has written so far (stdout and stderr). */
export interface SpawnedGateway {
  child: ChildProcess;
  output: () => string;
}

/**
 * Spawns `hermes gateway` (and `args`) on `home`, with nothing of this environment's own platforms,
 * allow-lists, Redis, database, API keys or HERMES_* settings, and `extraEnv`.
 */
export function spawnGateway(home: string, extraEnv: Record<string, string>, args: string[] = []): SpawnedGateway {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(TELEGRAM|SLACK|DISCORD|HERMES)_/.test(key) || ['GATEWAY_ALLOW_ALL_USERS', 'REDIS_URL', 'DATABASE_URL'].includes(key) || key.endsWith('_API_KEY')) delete env[key];
  }
  Object.assign(env, extraEnv);
  let output = '';
  const child = spawn(process.execPath, [builtCli, '--home', home, 'gateway', ...args], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Waits until the gateway writes `ready` ("started discord"); throws with its output when it exits first. */
export async function gatewayStarted(gateway: SpawnedGateway, ready: string, what = 'the gateway'): Promise<void> {
  await until(() => gateway.output().includes(ready) || gateway.child.exitCode !== null, `${what} to start`, 60_000);
  if (!gateway.output().includes(ready)) throw new Error(`${what} did not start: ${gateway.output()}`);
}

/** Starts one instance and waits until its Telegram webhook listens. */
export async function startGatewayProcess(home: string, extraEnv: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  const gateway = spawnGateway(home, {
    ...extraEnv,
    TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
    TELEGRAM_WEBHOOK_PORT: String(port),
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
  });
  await gatewayStarted(gateway, 'started telegram', 'hermes gateway');
  return { port, ...gateway };
}

/** SIGTERM to a child process, and waits for its exit (nothing when it has exited already). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** SIGTERM, and waits for the exit (nothing when it has exited already). */
export async function stopGatewayProcess(instance: GatewayProcess): Promise<void> {
  await stopChild(instance.child);
}

/** SIGKILL, and waits for the exit. */
export async function killGatewayProcess(instance: GatewayProcess): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = new Promise((resolve) => instance.child.once('exit', resolve));
  instance.child.kill('SIGKILL');
  await exited;
}

/** POSTs one Telegram update to an instance's webhook, as Telegram does; resolves with the HTTP status. */
export function postUpdate(to: GatewayProcess, update: unknown): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: to.port,
        path: '/hook',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(update));
  });
}

let updateId = 0;

/** A private chat's text message as a Telegram update. */
export function textUpdate(chat: number, text: string): { update_id: number; message: Record<string, unknown> } {
  updateId += 1;
  return {
    update_id: updateId,
    message: { message_id: updateId, date: 1, chat: { id: chat, type: 'private', first_name: 'U' }, from: { id: chat, is_bot: false, first_name: 'U' }, text },
  };
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

/** Which instance has `pid` among its descendants. */
export function ownerOf<T extends GatewayProcess>(pid: number, instances: T[]): T | undefined {
  for (let at: number | undefined = pid; at && at > 1; at = parentOf(at)) {
    const owner = instances.find((instance) => instance.child.pid === at);
    if (owner) return owner;
  }
  return undefined;
}

/** The JSON lines of HERMES_HOME/logs/agent.log (every instance appends to it). */
export function logLines(home: string): Array<Record<string, unknown>> {
  const file = join(home, 'logs', 'agent.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return []; // a line still being written
      }
    });
}
