import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { findExecutable } from '../../src/environments/index.js';
import { filesModel } from '../fakes/files-model.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eConfig } from '../fakes/slack-e2e-model.js';

/** The backends the file tests run on here: local always, the sandbox where bubblewrap is (always under CI). */
export function fileBackends(): Array<'local' | 'sandbox'> {
  const sandbox = process.env.CI === 'true' || (process.platform === 'linux' && findExecutable('bwrap') !== undefined);
  if (!sandbox) console.log('file tests on the sandbox skipped: bubblewrap (bwrap) is not installed');
  return sandbox ? ['local', 'sandbox'] : ['local'];
}

export const hasPython = spawnSync('python3', ['--version']).status === 0;

export interface FilesGateway {
  running: RunningGateway;
  model: FakeOpenAI;
  home: string;
  /** What `hermes gateway` printed (the web chat's address with its ?token=). */
  printed: string[];
  /** The session's workspace on this host once it exists (local: terminal.cwd; sandbox: its folder under HERMES_HOME/sandboxes). */
  workspace(): string;
  /** Stops the gateway and the model and removes the temporary folders. */
  stop(): Promise<void>;
}

const PLATFORMS = ['slack', 'discord', 'telegram', 'web'] as const;

/**
 * `hermes gateway` with only `platform` enabled (with `settings`), the files model, and the
 * session's commands on `backend` (both terminal.backend and terminal.platform_backend).
 */
export async function startFilesGateway(
  platform: (typeof PLATFORMS)[number],
  settings: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  options: {
    backend: 'local' | 'sandbox' | 'ssh' | 'docker';
    keyVar: string;
    maxInboundMb?: number;
    vision?: boolean | 'auto';
    /** More terminal settings (terminal.ssh, terminal.docker). */
    terminal?: Record<string, unknown>;
    /** The working folder; local and ssh (whose host is this one in the tests) get a fresh one by default. */
    cwd?: string;
  },
): Promise<FilesGateway> {
  process.env[options.keyVar] = 'sk-fake';
  const platforms = Object.fromEntries(PLATFORMS.map((name) => [name, name === platform ? settings : { enabled: false }]));
  const cwd = options.cwd ?? (options.backend === 'local' || options.backend === 'ssh' ? mkdtempSync(join(tmpdir(), 'hermes-files-work-')) : undefined);
  const made = e2eConfig(
    {
      model: { base_url: 'http://127.0.0.1:9/v1', name: 'fake-model', api_key_env: options.keyVar, stream: false, ...(options.vision !== undefined ? { vision: options.vision } : {}) },
      platforms,
      terminal: { backend: options.backend, platform_backend: options.backend, ...(cwd ? { cwd } : {}), ...options.terminal },
      files: { max_inbound_mb: options.maxInboundMb ?? 20 },
      code_execution: { kill_grace: 1 },
    },
    env,
  );
  const model = await startFakeOpenAI({ fallback: filesModel() });
  made.loaded.config.model.base_url = model.url;
  const { startGateway } = await import('../../src/cli/commands/gateway.js');
  const printed: string[] = [];
  const running = await startGateway(made.loaded, { env, print: (line) => printed.push(line) });
  const workspace = () => {
    if (cwd) return cwd;
    const root = made.loaded.paths.sandboxes;
    const sessions = existsSync(root) ? readdirSync(root) : [];
    if (sessions.length !== 1) throw new Error(`expected one sandbox session folder in ${root}, found ${sessions.length}`);
    return join(root, sessions[0]);
  };
  return {
    running,
    model,
    home: made.home,
    printed,
    workspace,
    async stop() {
      await running.stop();
      await model.close();
      made.cleanup();
      if (cwd) rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** Every file under `root` (folders end in `/`), relative to it, sorted. */
export function tree(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const rel = relative(root, full);
      if (statSync(full).isDirectory()) {
        found.push(`${rel}/`);
        walk(full);
      } else found.push(rel);
    }
  };
  walk(root);
  return found.sort();
}
