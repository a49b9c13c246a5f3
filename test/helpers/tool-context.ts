import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deepMerge, hermesPaths, validateConfig, type ConfigOverrides } from '../../src/config/index.js';
import { LocalEnvironment, buildChildEnv, type Environment } from '../../src/environments/index.js';
import { silentLogger, type Logger } from '../../src/shared/index.js';
import type { ToolContext } from '../../src/tools/index.js';

/** A fresh folder under the system temp folder. */
export function tempDir(prefix = 'hermes-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface MakeToolContextOptions {
  /** The environment's working folder; a fresh temp folder when left out. */
  cwd?: string;
  /** Laid over the defaults and validated like config.yaml. */
  config?: ConfigOverrides;
  /** HERMES_HOME; a fresh temp folder when left out. */
  home?: string;
  /** Use this environment instead of a LocalEnvironment at `cwd`. */
  environment?: Environment;
  /** Receives the environment built at `cwd` and returns the one to use (wrap it). */
  wrapEnvironment?: (local: LocalEnvironment) => Environment;
  signal?: AbortSignal;
  sessionId?: string;
  logger?: Logger;
  /** Variables children may see; defaults to process.env (scrubbed as usual). */
  sourceEnv?: NodeJS.ProcessEnv;
  passthrough?: ReadonlySet<string>;
  requestApproval?: ToolContext['requestApproval'];
  enabledTools?: readonly string[];
}

/**
 * A ToolContext for tests: default config with overrides, a LocalEnvironment whose children
 * get the scrubbed environment, a silent logger and the paths of a temp HERMES_HOME.
 */
export function makeToolContext(options: MakeToolContextOptions = {}): ToolContext {
  const { config } = validateConfig(deepMerge({}, options.config ?? {}), 'test config overrides');
  const logger = options.logger ?? silentLogger();
  const cwd = options.cwd ?? tempDir('hermes-cwd-');
  const local = new LocalEnvironment({
    cwd,
    timeout: config.terminal.timeout,
    maxOutputBytes: config.terminal.max_output_bytes,
    childEnv: () =>
      buildChildEnv({
        source: options.sourceEnv,
        passthrough: [...config.terminal.env_passthrough, ...(options.passthrough ?? [])],
        logger,
        label: 'terminal',
      }),
  });
  const environment = options.environment ?? (options.wrapEnvironment ? options.wrapEnvironment(local) : local);
  return {
    sessionId: options.sessionId ?? 'test-session',
    signal: options.signal ?? new AbortController().signal,
    environment,
    logger,
    config,
    paths: hermesPaths(options.home ?? tempDir('hermes-home-')),
    // The settings' environment a real turn hands its tools (their keys): here the test process's, read at each use.
    env: process.env,
    ...(options.passthrough ? { passthrough: options.passthrough } : {}),
    ...(options.requestApproval ? { requestApproval: options.requestApproval } : {}),
    ...(options.enabledTools ? { enabledTools: options.enabledTools } : {}),
  };
}

/**
 * An environment that offers only `execute` (and `cwd`, `cleanup`): what a remote backend
 * looks like, so the file tools must take their shell path.
 */
export function shellOnly(inner: Environment): Environment {
  return {
    get cwd() {
      return inner.cwd;
    },
    execute: (command, opts) => inner.execute(command, opts),
    cleanup: () => inner.cleanup(),
  };
}
