import { CallGate } from '../call-gate.js';
import type { Environment } from '../../environments/types.js';
import type { CellRequest, KernelAnswer } from '../call-path.js';
import { runGatedCell, runInKernel, sessionKernelPool } from '../kernel-cells.js';
import { KernelStartError, type Kernel, type KernelPool } from '../kernel/index.js';
import type { ExecuteCodeResult } from '../types.js';
import { RemoteKernel, type RemoteCellOptions } from './remote-kernel.js';
import { remoteScriptEnv } from './remote-per-call.js';
import type { RemoteRunnerDeps } from './remote-runner.js';
import { StreamUnavailableError, offersStream } from './stream-channel.js';
import { StreamKernel } from './stream-kernel.js';
import { streamScriptEnv } from './stream-script.js';

/** A remote session kernel: over the environment's stream, or over files. */
type AnyRemoteKernel = Kernel<RemoteCellOptions>;

/**
 * Session kernels on remote backends, under the same KernelPool (one cell at a time per
 * owner, idle reaping, the cap, pins) and the same result shape as local ones. Each kernel
 * has its own gate, opened per cell. A kernel rides the environment's stream when it offers
 * one (the stream is also its lifeline), else the file transport.
 */
export class RemoteKernels {
  readonly pool: KernelPool<AnyRemoteKernel>;
  private readonly gates = new Map<AnyRemoteKernel, CallGate>();

  constructor(private readonly deps: RemoteRunnerDeps) {
    this.pool = sessionKernelPool<AnyRemoteKernel>(deps.config, deps.logger);
  }

  /** Runs a cell in the owner's remote kernel, or returns `{ unavailable }` when none can start. */
  async run(request: CellRequest, environment: Environment): Promise<KernelAnswer> {
    return runInKernel(this.pool, request, () => this.startKernel(request, environment), (kernel) => this.runCell(kernel, request));
  }

  async close(): Promise<void> {
    await this.pool.closeAll();
  }

  private async startKernel(request: CellRequest, environment: Environment): Promise<AnyRemoteKernel> {
    const settings = this.deps.config.code_execution;
    const gate = new CallGate(this.deps.registry);
    let kernel: AnyRemoteKernel | undefined;
    if (offersStream(environment)) {
      try {
        kernel = await StreamKernel.start({
          environment,
          stub: request.stub,
          cwd: environment.cwd,
          env: streamScriptEnv(request.passthrough, this.deps.logger),
          graceMs: settings.kill_grace * 1000,
          maxConnections: settings.max_rpc_connections,
          handler: gate.handle,
          logger: this.deps.logger,
        });
      } catch (error) {
        // Only a stream that would not open falls back to files; a kernel that fails on the stream fails there too.
        if (!(error instanceof KernelStartError && error.cause instanceof StreamUnavailableError)) throw error;
        this.deps.logger.warn({ why: error.message }, 'execute_code: the stream channel is unavailable; the session kernel uses the file transport');
      }
    }
    kernel ??= await RemoteKernel.start({
      environment,
      stub: request.stub,
      // strict mode runs in the kernel's own folder: the runner chdirs there itself when cwd is empty.
      cwd: environment.cwd,
      env: (dir) => remoteScriptEnv(dir, request.passthrough, this.deps.logger),
      idleSeconds: settings.kernel_idle_timeout,
      graceMs: settings.kill_grace * 1000,
      maxOutputBytes: this.deps.config.terminal.max_output_bytes,
      handler: gate.handle,
      logger: this.deps.logger,
    });
    this.gates.set(kernel, gate);
    return kernel;
  }

  private async runCell(kernel: AnyRemoteKernel, request: CellRequest): Promise<ExecuteCodeResult> {
    const settings = this.deps.config.code_execution;
    const onStdout = this.deps.onStdout;
    const result = await runGatedCell(this.gates.get(kernel)!, request, this.deps.config, { host: this.deps.spillDir, visible: this.deps.spillDir }, (io) =>
      kernel.runCell(request.code, {
        ...io,
        onStdout: onStdout ? (chunk) => (io.onStdout(chunk), onStdout(chunk)) : io.onStdout,
        maxStdoutFetch: settings.max_spill_bytes,
        maxStderrBytes: settings.max_stderr_bytes,
      }),
    );
    if (!kernel.alive) this.gates.delete(kernel);
    return result;
  }
}
