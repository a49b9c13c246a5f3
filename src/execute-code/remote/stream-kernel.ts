import { readFileSync } from 'node:fs';
import type { Environment } from '../../environments/types.js';
import { errorMessage } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { FrameKernel, KernelStartError, KernelWiring, StartFailure, kernelRunnerPath, type FrameTransport } from '../kernel/index.js';
import { settleWithin } from '../kernel/settle-within.js';
import { RpcServer, type RpcHandler } from '../rpc/server.js';
import { StagingDir } from '../staging.js';
import { RemoteExecError } from './remote-folder.js';
import { StreamChannel, StreamUnavailableError, type ChannelEnd } from './stream-channel.js';
import { claimSweep } from './sweep.js';

let runnerText: string | undefined;

export interface StreamKernelStart {
  environment: Environment & Required<Pick<Environment, 'openStream'>>;
  stub: string;
  /** The kernel's working folder on the backend. */
  cwd: string;
  /** The stream's variables (the scrubbed set and Python's settings). */
  env: Record<string, string>;
  graceMs: number;
  maxConnections: number;
  handler: RpcHandler;
  logger?: Logger;
  startTimeoutMs?: number;
}

/**
 * A session kernel on a remote backend over one stream: the same kernel_runner.py and the
 * same cell state machine (FrameKernel) as a local kernel, started by remote_stream_runner.py
 * with its control socket and lifeline there; control bytes, the cells' output and the tool
 * calls ride the stream (no files, no polling). The stream is the kernel's lifeline: when it
 * closes (the gateway died, the connection dropped) the runner kills the kernel's group and
 * removes its folder.
 */
export class StreamKernel extends FrameKernel {
  readonly #transport: StreamTransport;

  private constructor(transport: StreamTransport, wiring: KernelWiring, logger: Logger | undefined) {
    super(transport, wiring, logger);
    this.#transport = transport;
  }

  /**
   * Opens the stream, starts the kernel there and waits for its hello.
   * @throws KernelStartError (with a RemoteExecError or StreamUnavailableError as cause) when it cannot.
   */
  static async start(options: StreamKernelStart): Promise<StreamKernel> {
    const wiring = new KernelWiring();
    const transport = await StreamTransport.open(options, wiring);
    return new StreamKernel(transport, wiring, options.logger);
  }

  /** The kernel's private folder on the backend. */
  get dir(): string {
    return this.#transport.dir;
  }
}

/** Stream frames to one kernel on a backend, with this kernel's own RPC server for its tool calls. */
class StreamTransport implements FrameTransport {
  readonly exited: Promise<void>;
  readonly ended: Promise<string>;
  readonly #channel: StreamChannel;
  readonly #rpc: RpcServer;
  readonly #staging: StagingDir;
  readonly #graceMs: number;
  #closing: Promise<void> | undefined;

  private constructor(channel: StreamChannel, rpc: RpcServer, staging: StagingDir, graceMs: number) {
    this.#channel = channel;
    this.#rpc = rpc;
    this.#staging = staging;
    this.#graceMs = graceMs;
    // The runner sends the exit only after the kernel's output: all of it is in by then.
    this.ended = channel.ended.then(endDetail);
    this.exited = this.ended.then(() => undefined);
    channel.unref();
  }

  static async open(options: StreamKernelStart, wiring: KernelWiring): Promise<StreamTransport> {
    runnerText ??= readFileSync(kernelRunnerPath(), 'utf8');
    const staging = await StagingDir.create();
    const rpc = new RpcServer({ transport: 'unix', socketPath: staging.socketPath, handler: options.handler, maxConnections: options.maxConnections });
    let channel: StreamChannel | undefined;
    try {
      await rpc.listen();
      channel = await StreamChannel.open(options.environment, {
        env: options.env,
        cwd: options.cwd,
        setup: {
          mode: 'kernel',
          prefix: 'hermes-rkernel',
          files: { 'hermes_tools.py': options.stub, 'kernel.py': runnerText },
          argv: ['python3', '{dir}/kernel.py'],
          env: { HERMES_RPC_TOKEN: rpc.token },
          sweep: claimSweep(options.environment),
          graceMs: options.graceMs,
          maxConnections: options.maxConnections,
        },
        rpcSocketPath: staging.socketPath,
        listeners: wiring.listeners,
        logger: options.logger,
        startTimeoutMs: options.startTimeoutMs,
      });
      await wiring.ready(options.startTimeoutMs ?? 30_000, channel.ended.then(endDetail));
      return new StreamTransport(channel, rpc, staging, options.graceMs);
    } catch (error) {
      await channel?.close();
      await rpc.close();
      await staging.remove();
      if (error instanceof KernelStartError) throw error;
      if (error instanceof StartFailure) {
        const stderr = error.stderr.split('\n').at(-1);
        throw new KernelStartError(`the remote kernel did not start: ${error.message}${stderr ? `; its stderr ends with: ${stderr}` : ''}`);
      }
      const cause = error instanceof RemoteExecError || error instanceof StreamUnavailableError ? error : undefined;
      throw new KernelStartError(errorMessage(error), { cause: cause ?? error });
    }
  }

  get pid(): number {
    return this.#channel.pid;
  }

  get dir(): string {
    return this.#channel.dir;
  }

  send(frame: Buffer): void {
    this.#channel.sendControl(frame);
  }

  ref(): void {
    this.#channel.ref();
  }

  unref(): void {
    this.#channel.unref();
  }

  /** The runner's own supervisor sweeps after each cell, on the backend. */
  sweep(): undefined {
    return undefined;
  }

  async terminate(): Promise<void> {
    this.#channel.terminate();
    await settleWithin(this.#channel.ended, this.#graceMs + 3000);
  }

  /** Closes the stream (the runner ends the kernel's group and removes the folder) and this kernel's RPC server. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#channel.close();
      await this.#rpc.close();
      await this.#staging.remove();
    })();
    return this.#closing;
  }
}

function endDetail(end: ChannelEnd): string {
  if (end.kind === 'lost') return end.detail;
  return end.signal ? `killed by ${end.signal}` : `exited with code ${end.code}`;
}
