import type { HermesConfig } from '../config/schema.js';
import type { Environment, HostCommand } from '../environments/types.js';
import type { Logger } from '../shared/logger.js';
import type { RpcServer } from './rpc/server.js';
import type { StagingDir } from './staging.js';
import { resolveInterpreter } from './interpreter.js';
import { scriptEnv } from './script-env.js';

export interface LaunchOptions {
  /** Must have `hostCommand` (callers check first and take another path without it). */
  environment: Environment;
  staging: StagingDir;
  rpc: RpcServer;
  settings: HermesConfig['code_execution'];
  /** The command to run, given the interpreter: a script, or the kernel runner. */
  argv(python: string): string[];
  /** Host paths the process must reach besides the staging folder. */
  binds?: string[];
  passthrough: Iterable<string>;
  strip: Iterable<string>;
  logger?: Logger;
}

/**
 * How a script or kernel starts inside the session's environment: the interpreter for the
 * mode, the scrubbed environment with the RPC address and token, the working folder for the
 * mode (the session's in `project`, the staging folder in `strict`), the staging folder bound.
 */
export async function launchCommand(options: LaunchOptions): Promise<HostCommand> {
  const { settings, staging, rpc } = options;
  const python = await resolveInterpreter(settings.mode, settings.python);
  const env = scriptEnv({
    rpcAddress: rpc.address,
    rpcToken: rpc.token,
    stagingDir: staging.path,
    passthrough: options.passthrough,
    strip: options.strip,
    logger: options.logger,
  });
  const { environment } = options;
  if (!environment.hostCommand) throw new Error('execute_code: this terminal backend does not run processes on this host');
  const cwd = settings.mode === 'strict' ? staging.path : environment.cwd;
  return environment.hostCommand(options.argv(python), { cwd, env, binds: [staging.path, ...(options.binds ?? [])] });
}
