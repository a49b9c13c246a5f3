import { OutputCapture } from '../../shared/output-capture.js';
import { CallGate } from '../call-gate.js';
import { cellResult, runInKernel, sessionKernelPool, type CellRequest } from '../kernel-execution.js';
import type { KernelPool, CellOutcome } from '../kernel/index.js';
import { StdoutSink } from '../stdout-sink.js';
import { secondsSince, stdoutFields } from '../result.js';
import type { ExecuteCodeResult } from '../types.js';
import { RemoteKernel } from './remote-kernel.js';
import { remoteScriptEnv } from './remote-per-call.js';
import type { RemoteRunnerDeps } from './remote-runner.js';

/**
 * Session kernels on remote backends, under the same KernelPool (one cell at a time per
 * owner, idle reaping, the cap, pins) and the same result shape as local ones. Each kernel
 * has its own gate, opened per cell.
 */
export class RemoteKernels {
  readonly pool: KernelPool<RemoteKernel>;
  private readonly gates = new Map<RemoteKernel, CallGate>();

  constructor(private readonly deps: RemoteRunnerDeps) {
    this.pool = sessionKernelPool<RemoteKernel>(deps.config, deps.logger);
  }

  /** Runs a cell in the owner's remote kernel, or returns `{ unavailable }` when none can start. */
  async run(request: CellRequest): Promise<ExecuteCodeResult | { unavailable: string }> {
    return runInKernel(this.pool, request, () => this.startKernel(request), (kernel) => this.runCell(kernel, request));
  }

  async close(): Promise<void> {
    await this.pool.closeAll();
  }

  private async startKernel(request: CellRequest): Promise<RemoteKernel> {
    const environment = request.context.environment;
    const settings = this.deps.config.code_execution;
    const gate = new CallGate(this.deps.registry);
    const strip = [...this.deps.strip()];
    const kernel = await RemoteKernel.start({
      environment,
      stub: request.stub,
      // strict mode runs in the kernel's own folder: the runner chdirs there itself when cwd is empty.
      cwd: environment.cwd,
      env: (dir) => remoteScriptEnv(dir, request.passthrough, strip, this.deps.logger),
      idleSeconds: settings.kernel_idle_timeout,
      graceMs: settings.kill_grace * 1000,
      maxOutputBytes: this.deps.config.terminal.max_output_bytes,
      handler: gate.handle,
      logger: this.deps.logger,
    });
    this.gates.set(kernel, gate);
    return kernel;
  }

  private async runCell(kernel: RemoteKernel, request: CellRequest): Promise<ExecuteCodeResult> {
    const settings = this.deps.config.code_execution;
    const gate = this.gates.get(kernel)!;
    const stdout = new StdoutSink(settings.max_stdout_bytes, settings.max_spill_bytes, this.deps.spillDir);
    const stderr = new OutputCapture(Math.floor(settings.max_stderr_bytes * 0.4), Math.ceil(settings.max_stderr_bytes * 0.6));
    const close = gate.open({ allowed: request.allowed, maxCalls: settings.max_tool_calls, context: request.context });
    let calls = 0;
    let outcome: CellOutcome;
    try {
      outcome = await kernel.runCell(request.code, {
        timeoutMs: settings.timeout * 1000,
        signal: request.context.signal,
        maxStdoutFetch: settings.max_spill_bytes,
        maxStderrBytes: settings.max_stderr_bytes,
        onStdout: (chunk) => stdout.push(chunk),
        onStderr: (chunk) => stderr.push(chunk),
      });
    } finally {
      calls = close();
    }
    if (!kernel.alive) this.gates.delete(kernel);
    const spillPath = await stdout.finish();
    const out = stdout.text();
    const base = {
      tool_calls_made: calls,
      duration_seconds: secondsSince(request.startedMs),
      ...stdoutFields({ text: out, truncated: stdout.capture.truncated, totalBytes: stdout.capture.total, spillPath }),
    };
    return cellResult(outcome, out, stderr.text(), settings.timeout, base);
  }
}
