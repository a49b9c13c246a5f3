import type { HermesConfig } from '../config/schema.js';
import type { HostCommand, HostProcessEnvironment } from '../environments/types.js';
import type { Logger } from '../shared/logger.js';
import { RpcServer, type RpcHandler } from './rpc/server.js';
import { StagingDir } from './staging.js';
import { resolveInterpreter } from './interpreter.js';
import { scriptEnv } from './script-env.js';

export interface LaunchOptions {
  environment: HostProcessEnvironment;
  staging: StagingDir;
  rpc: RpcServer;
  settings: HermesConfig['code_execution'];
  /** The command to run, given the interpreter and the staging folder: a script, or the kernel runner. */
  argv(python: string, staging: StagingDir): string[];
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
  return options.environment.hostCommand(options.argv(python, staging), { cwd, env, binds: [staging.path], readOnly: options.readOnly });
}

/** A process's staging folder and the RPC server listening in it: they live and go together. */
export interface Staged {
  staging: StagingDir;
  rpc: RpcServer;
  /** The command that starts the process inside the environment. */
  command: HostCommand;
  /** Closes the server and removes the folder. */
  release(): Promise<void>;
}

/**
 * Everything a script or kernel on this host needs before it starts: the private staging
 * folder with `files` (the stub, the script), the RPC server of `handler` listening in it,
 * and the launch command. On failure both are gone before it throws.
 */
export async function stageLaunch(options: Omit<LaunchOptions, 'staging' | 'rpc'> & { files: Record<string, string>; handler: RpcHandler }): Promise<Staged> {
  const { settings } = options;
  const staging = await StagingDir.create();
  const rpc = new RpcServer({
    transport: settings.rpc_transport,
    socketPath: staging.socketPath,
    handler: options.handler,
    maxConnections: settings.max_rpc_connections,
  });
  const release = async () => {
    await rpc.close();
    await staging.remove();
  };
  try {
    for (const [name, text] of Object.entries(options.files)) await staging.write(name, text);
    await rpc.listen();
    return { staging, rpc, command: await launchCommand({ ...options, staging, rpc }), release };
  } catch (error) {
    await release();
    throw error;
  }
}
