import type { HermesConfig } from '../../config/schema.js';
import type { Logger } from '../../shared/logger.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { Environment } from '../../environments/types.js';
import { runCall, type CallPath, type CellRequest } from '../call-path.js';
import { oneShotInput } from '../per-call-execution.js';
import type { ExecuteCodeResult } from '../types.js';
import { executeRemotePerCall } from './remote-per-call.js';
import { offersStream } from './stream-channel.js';
import { executeStreamPerCall } from './stream-script.js';
import { RemoteKernels } from './remote-kernels.js';

export interface RemoteRunnerDeps {
  config: HermesConfig;
  registry: ToolRegistry;
  logger: Logger;
  spillDir: string;
  /** Sees each chunk of a streamed script's stdout as it arrives (a live view); tests and later a chat. */
  onStdout?(chunk: Buffer): void;
}

/**
 * execute_code for environments whose processes do not start on this host (SSH, Docker,
 * plugins): session kernels on the backend when enabled (remote-kernels.ts), and one-shot
 * scripts. Both ride the environment's stream (`openStream`: docker exec -i, one SSH
 * session) when it has one, else the file transport.
 */
export class RemoteCodeRunner implements CallPath<Environment> {
  readonly kernels?: RemoteKernels;

  constructor(private readonly deps: RemoteRunnerDeps) {
    if (deps.config.code_execution.session_kernels) this.kernels = new RemoteKernels(deps);
  }

  /** A call in the session kernel, else one-shot (runCall: the executor's one fallback). */
  execute(request: CellRequest): Promise<ExecuteCodeResult> {
    return runCall(this, request, request.context.environment, this.deps.logger);
  }

  /** A one-shot script: over the environment's stream when it has one, else (or when it fails to open) over files. */
  async oneShot(request: CellRequest, environment: Environment): Promise<ExecuteCodeResult> {
    const input = { ...oneShotInput(request, this.deps), environment, spillDir: this.deps.spillDir };
    if (offersStream(environment)) {
      const streamed = await executeStreamPerCall({ ...input, environment, onStdout: this.deps.onStdout });
      if (!('unavailable' in streamed)) return streamed;
      input.logger.warn({ why: streamed.unavailable }, 'execute_code: the stream channel is unavailable; using the file transport');
    }
    return executeRemotePerCall(input);
  }

  async close(): Promise<void> {
    await this.kernels?.close();
  }
}
