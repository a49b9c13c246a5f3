import type { HermesConfig } from '../../config/schema.js';
import type { Logger } from '../../shared/logger.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { CallGate } from '../call-gate.js';
import type { CellRequest } from '../kernel-execution.js';
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
 * execute_code for environments without `hostCommand` (SSH, Docker, plugins): session
 * kernels on the backend when enabled, else (or when one cannot start) a one-shot script,
 * with the same note as locally. Both ride the environment's stream (`openStream`: docker
 * exec -i, one SSH session) when it has one, else the file transport.
 */
export class RemoteCodeRunner {
  readonly kernels?: RemoteKernels;

  constructor(private readonly deps: RemoteRunnerDeps) {
    if (deps.config.code_execution.session_kernels) this.kernels = new RemoteKernels(deps);
  }

  async execute(request: CellRequest): Promise<ExecuteCodeResult> {
    let note: string | undefined;
    if (this.kernels) {
      const cell = await this.kernels.run(request);
      if (!('unavailable' in cell)) return cell;
      note = `session kernel unavailable: ${cell.unavailable}; this call ran as a one-shot script and keeps no state`;
      this.deps.logger.warn({ session: request.owner }, note);
    }
    const result = await this.oneShot(request);
    return note ? { ...result, kernel: { mode: 'per-call', note } } : result;
  }

  /** A one-shot script: over the environment's stream when it has one, else (or when it fails to open) over files. */
  private async oneShot(request: CellRequest): Promise<ExecuteCodeResult> {
    const environment = request.context.environment;
    const input = {
      code: request.code,
      stub: request.stub,
      allowed: request.allowed,
      context: request.context,
      environment,
      gate: new CallGate(this.deps.registry),
      config: this.deps.config,
      passthrough: request.passthrough,
      spillDir: this.deps.spillDir,
      logger: this.deps.logger.child({ session: request.owner }),
      startedMs: request.startedMs,
    };
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
