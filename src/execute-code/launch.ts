import type { HermesConfig } from '../config/schema.js';
import type { HostCommand, HostProcessEnvironment } from '../environments/types.js';
import type { Logger } from '../shared/logger.js';
import type { RpcServer } from './rpc/server.js';
import type { StagingDir } from './staging.js';
import { resolveInterpreter } from './interpreter.js';
import { scriptEnv } from './script-env.js';

export interface LaunchOptions {
  environment: HostProcessEnvironment;
  staging: StagingDir;
  rpc: RpcServer;
  settings: HermesConfig['code_execution'];
  /** The command to run, given the interpreter: a script, or the kernel runner. */
  argv(python: string): string[];
  /** Host paths the process may read besides the staging folder (the kernel runner). */
  readOnly?: string[];
  passthrough: Iterable<string>;
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
    logger: options.logger,
  });
  const cwd = settings.mode === 'strict' ? staging.path : options.environment.cwd;
  return options.environment.hostCommand(options.argv(python), { cwd, env, binds: [staging.path], readOnly: options.readOnly });
}
