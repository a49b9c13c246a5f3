import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  liveConfig,
  liveEnv,
  loadConfig,
  readDotEnv,
  SettingsStore,
  readYamlFile,
  setConfigValue,
  setDotEnvValue,
  watchConfig,
  type ConfigChange,
  type ConfigWatcher,
} from '../../src/config/index.js';
import { reloadMcpServers } from '../../src/mcp/reload.js';

/*
 * config.yaml and .env that are not regular files: a local script can `os.mkfifo` them, bind a
 * socket there or leave a directory or a symlink to /dev/zero. Every reader refuses them at
 * once with the file's name; none waits for a writer.
 *
 * A FIFO is tried with a writer standing by (`sleep 3 > fifo`, blocked in its own open until
 * someone opens the FIFO for reading): a reader that opened it would get its EOF after 3 s and
 * the test would fail on what was read instead of hanging the worker.
 */
describe('config files that are not regular files are refused without blocking', () => {
  let home: string;
  const writers: ChildProcess[] = [];
  const servers: Server[] = [];

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-safe-read-'));
  });
  afterEach(() => {
    for (const writer of writers.splice(0)) writer.kill('SIGKILL');
    for (const server of servers.splice(0)) server.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** A FIFO at `file`, with a writer that would release a blocked reader after 3 s. */
  function fifoAt(file: string): void {
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    writers.push(spawn('sh', ['-c', `sleep 3 > '${file}'`], { stdio: 'ignore' }));
  }

  async function socketAt(file: string): Promise<void> {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(file, resolve));
  }

  /** Runs `read`, which must throw at once; returns the message. */
  function refusal(read: () => unknown): string {
    const started = Date.now();
    let message = '';
    try {
      read();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(Date.now() - started).toBeLessThan(1000);
    return message;
  }

  it('config.yaml as a FIFO: loadConfig, readYamlFile and config set fail at once, naming the file and what it is', () => {
    const file = join(home, 'config.yaml');
    fifoAt(file);
    expect(refusal(() => loadConfig({ home, env: {} }))).toBe(
      `${file}: is a FIFO (named pipe), not a regular file; it was not read (replace it with a plain file, e.g. \`rm ${file}\` and run hermes setup or hermes config set)`,
    );
    expect(refusal(() => readYamlFile(file))).toContain(`${file}: is a FIFO (named pipe)`);
    expect(refusal(() => setConfigValue(file, 'model.name', 'x'))).toContain(`${file}: is a FIFO (named pipe)`);
  });

  it('.env as a FIFO: the start, readDotEnv and saving a key fail at once, naming .env', () => {
    const file = join(home, '.env');
    fifoAt(file);
    expect(refusal(() => loadConfig({ home, env: {} }))).toContain(`${file}: is a FIFO (named pipe)`);
    expect(refusal(() => readDotEnv(file))).toContain(`${file}: is a FIFO (named pipe)`);
    expect(refusal(() => setDotEnvValue(file, 'OPENAI_API_KEY', 'sk-1'))).toContain(`${file}: is a FIFO (named pipe)`);
  });

  it('a socket, a directory, a symlink to a FIFO and a symlink to /dev/zero are refused with what they are', async () => {
    const file = join(home, 'config.yaml');
    await socketAt(file);
    expect(refusal(() => readYamlFile(file))).toContain(`${file}: is a socket`);
    rmSync(file);
    mkdirSync(file);
    expect(refusal(() => readYamlFile(file))).toContain(`${file}: is a directory`);
    rmSync(file, { recursive: true });
    const fifo = join(home, 'elsewhere');
    fifoAt(fifo);
    symlinkSync(fifo, file);
    expect(refusal(() => readYamlFile(file))).toContain(`${file}: is a FIFO (named pipe)`);
    rmSync(file);
    symlinkSync('/dev/zero', file);
    expect(refusal(() => readYamlFile(file))).toContain(`${file}: is a character device`);
  });

  it('a symlink to a regular file is read as before', () => {
    const real = join(home, 'dotfiles-config.yaml');
    writeFileSync(real, 'model:\n  name: linked-model\n');
    symlinkSync(real, join(home, 'config.yaml'));
    expect(loadConfig({ home, env: {} }).config.model.name).toBe('linked-model');
  });

  it('/reload-mcp with config.yaml as a FIFO answers that it was not reloaded, at once', async () => {
    writeFileSync(join(home, 'config.yaml'), 'model:\n  name: m\n');
    const loaded = loadConfig({ home, env: {} });
    rmSync(join(home, 'config.yaml'));
    fifoAt(join(home, 'config.yaml'));
    const servers = { load: () => Promise.reject(new Error('must not be called')), status: () => [] };
    const started = Date.now();
    const reply = await reloadMcpServers(servers as unknown as Parameters<typeof reloadMcpServers>[0], loaded.paths);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(reply).toContain(`MCP servers not reloaded: ${join(home, 'config.yaml')}: is a FIFO (named pipe)`);
  });
});

describe('hot reload: a file that cannot be used keeps the running settings', () => {
  let home: string;
  let watcher: ConfigWatcher | undefined;
  const writers: ChildProcess[] = [];
  const logged: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-safe-reload-'));
    logged.length = 0;
  });
  afterEach(() => {
    watcher?.close();
    watcher = undefined;
    for (const writer of writers.splice(0)) writer.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  function watching(env: NodeJS.ProcessEnv) {
    const store = new SettingsStore(loadConfig({ home, env }));
    const changes: ConfigChange[] = [];
    watcher = watchConfig({ store, exportTo: env, logger, onChange: (change) => changes.push(change) });
    return { live: liveConfig(store), vars: liveEnv(store), reload: () => watcher!.reload(), changes };
  }

  it('an emptied config.yaml (an editor truncating before it writes) keeps the model; the real save after it applies', () => {
    const file = join(home, 'config.yaml');
    writeFileSync(file, 'model:\n  name: kept-model\n  base_url: http://127.0.0.1:9/v1\n');
    const { live, reload } = watching({});
    for (const blank of ['', '  \n\n\t\n']) {
      writeFileSync(file, blank);
      expect(reload()).toEqual({ applied: [], needsRestart: [] });
      expect(live.model.name).toBe('kept-model');
      expect(live.model.base_url).toBe('http://127.0.0.1:9/v1');
    }
    expect(logged.join('')).toContain(`${file} is empty; the running settings stay`);
    // The save that follows: compared with the settings applied last, so only the name changed.
    writeFileSync(file, 'model:\n  name: next-model\n  base_url: http://127.0.0.1:9/v1\n');
    expect(reload()).toEqual({ applied: ['model.name'], needsRestart: [] });
    expect(live.model.name).toBe('next-model');
  });

  it('config.yaml swapped for a FIFO while running: the reload returns at once, logs the file, and the settings stay', () => {
    const file = join(home, 'config.yaml');
    writeFileSync(file, 'model:\n  name: kept-model\n');
    const { live, reload } = watching({});
    rmSync(file);
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    writers.push(spawn('sh', ['-c', `sleep 3 > '${file}'`], { stdio: 'ignore' }));
    const started = Date.now();
    expect(reload()).toEqual({ applied: [], needsRestart: [] });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(live.model.name).toBe('kept-model');
    expect(logged.join('')).toContain(`${file}: is a FIFO (named pipe)`);
  });

  it('.env swapped for a FIFO or emptied while running keeps its variables', () => {
    const file = join(home, '.env');
    writeFileSync(file, "OPENAI_API_KEY='sk-kept'\n");
    const env: NodeJS.ProcessEnv = {};
    const { reload, vars } = watching(env);
    expect(vars.OPENAI_API_KEY).toBe('sk-kept');
    writeFileSync(file, '');
    expect(reload()).toEqual({ applied: [], needsRestart: [] });
    expect(vars.OPENAI_API_KEY).toBe('sk-kept');
    rmSync(file);
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    writers.push(spawn('sh', ['-c', `sleep 3 > '${file}'`], { stdio: 'ignore' }));
    const started = Date.now();
    expect(reload()).toEqual({ applied: [], needsRestart: [] });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(vars.OPENAI_API_KEY).toBe('sk-kept');
    expect(logged.join('')).toContain(`${file}: is a FIFO (named pipe)`);
    // A real save after it applies (the writer stopped first: a late start would truncate the new file).
    for (const writer of writers.splice(0)) writer.kill('SIGKILL');
    rmSync(file);
    writeFileSync(file, "OPENAI_API_KEY='sk-new'\n");
    expect(reload().applied).toEqual(['OPENAI_API_KEY']);
    expect(vars.OPENAI_API_KEY).toBe('sk-new');
    expect(env.OPENAI_API_KEY).toBe('sk-new');
    expect(readFileSync(file, 'utf8')).toContain('sk-new');
  });
});
