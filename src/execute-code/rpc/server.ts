import { createServer, type Server, type Socket } from 'node:net';
import { chmod } from 'node:fs/promises';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { errorMessage } from '../../shared/errors.js';
import { FrameBudget, FrameReader, MAX_FRAME_BYTES, type FrameOverflow } from './frame-reader.js';

/** Runs one tool call for a script; the server owns framing and authentication only. */
export type RpcHandler = (tool: string, args: unknown) => Promise<unknown>;

/** Default of `code_execution.max_rpc_connections`. */
export const DEFAULT_MAX_RPC_CONNECTIONS = 64;
/** Requests of one connection being answered at once; the stub's threads share one connection. */
export const MAX_IN_FLIGHT = 64;
/** Unfinished request bytes held for all connections of one server (four full frames). */
export const MAX_BUFFERED_BYTES = 4 * MAX_FRAME_BYTES;

export interface RpcServerOptions {
  transport: 'unix' | 'tcp';
  /** Socket path for the unix transport (keep it short: sun_path is ~108 bytes). */
  socketPath?: string;
  handler: RpcHandler;
  /** Connections open at once (`code_execution.max_rpc_connections`); past it a new one is refused. */
  maxConnections?: number;
  /** Requests in flight per connection; past it a request is answered with an error at once. */
  maxInFlight?: number;
}

type Send = (message: unknown) => void;

/**
 * The gateway's end of the hermes_tools RPC: newline-delimited JSON requests
 * `{id, tool, args, token}`, answered with `{id, result}` in any order, so several threads
 * of one script can call at once over one connection.
 *
 * Everything a script can make the gateway hold is bounded: connections (past the cap a new
 * one gets a one-line JSON error and is closed at once, so a flood cannot exhaust the
 * gateway's file descriptors), requests in flight per connection, bytes of unfinished
 * frames, and answers the script does not read (its connection is not read meanwhile).
 */
export class RpcServer {
  readonly token = randomBytes(24).toString('hex');
  private readonly tokenBytes = Buffer.from(this.token);
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly budget = new FrameBudget(MAX_BUFFERED_BYTES);
  private readonly maxConnections: number;
  private readonly maxInFlight: number;
  /** What the child puts in HERMES_RPC_SOCKET: a path, or tcp://127.0.0.1:PORT. */
  address = '';

  constructor(private readonly options: RpcServerOptions) {
    this.maxConnections = options.maxConnections ?? DEFAULT_MAX_RPC_CONNECTIONS;
    this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  }

  /** Connections open now (refused ones are never counted). */
  get connections(): number {
    return this.sockets.size;
  }

  async listen(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      if (this.options.transport === 'tcp') server.listen(0, '127.0.0.1', () => resolve());
      else server.listen(this.options.socketPath, () => resolve());
    });
    // A failed accept (EMFILE elsewhere in the gateway) must not become an uncaught error.
    server.on('error', () => undefined);
    if (this.options.transport === 'tcp') {
      const info = server.address();
      if (info === null || typeof info === 'string') throw new Error('RPC server has no TCP address');
      this.address = `tcp://127.0.0.1:${info.port}`;
    } else {
      this.address = this.options.socketPath!;
      await chmod(this.address, 0o600);
    }
  }

  /** Stops listening and drops every connection; removes the socket file. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    if (this.sockets.size >= this.maxConnections) {
      return closeWith(socket, {
        error:
          `RPC connection refused: this execution already has ${this.maxConnections} connections open ` +
          '(code_execution.max_rpc_connections); close one, or share one connection between threads as hermes_tools does',
      });
    }
    this.sockets.add(socket);
    socket.setNoDelay?.(true);
    let waitingForDrain = false;
    const send: Send = (message) => {
      if (socket.destroyed) return;
      // A script that does not read its answers must not grow our buffer: stop reading it until it does.
      if (!socket.write(JSON.stringify(message) + '\n') && !waitingForDrain) {
        waitingForDrain = true;
        socket.pause();
        socket.once('drain', () => {
          waitingForDrain = false;
          socket.resume();
        });
      }
    };
    const inFlight = { count: 0 };
    const reader = new FrameReader(
      (frame) => this.handleFrame(frame, send, inFlight),
      (why: FrameOverflow) =>
        closeWith(socket, {
          error:
            why === 'frame'
              ? `Invalid RPC request: frame larger than ${MAX_FRAME_BYTES} bytes`
              : `Invalid RPC request: this execution's connections already hold ${MAX_BUFFERED_BYTES} bytes of unfinished requests`,
        }),
      MAX_FRAME_BYTES,
      this.budget,
    );
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('close', () => {
      reader.dispose();
      this.sockets.delete(socket);
    });
  }

  private handleFrame(frame: Buffer, send: Send, inFlight: { count: number }): void {
    let request: { id?: unknown; tool?: unknown; args?: unknown; token?: unknown };
    try {
      request = JSON.parse(frame.toString('utf8')) as typeof request;
    } catch (error) {
      return send({ error: `Invalid RPC request: ${(error as Error).message}` });
    }
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return send({ error: 'Invalid RPC request: expected a JSON object' });
    }
    const id = request.id;
    if (!this.authorized(request.token)) return send({ id, error: 'Unauthorized RPC request' });
    if (typeof id !== 'number' && typeof id !== 'string') {
      return send({ error: 'Invalid RPC request: "id" must be a number or a string' });
    }
    if (typeof request.tool !== 'string' || request.tool === '') {
      return send({ id, error: 'Invalid RPC request: "tool" must be a non-empty string' });
    }
    if (inFlight.count >= this.maxInFlight) {
      return send({
        id,
        error: `Too many RPC requests in flight on this connection (at most ${this.maxInFlight}): wait for an answer before sending more`,
      });
    }
    inFlight.count++;
    void this.options
      .handler(request.tool, request.args ?? {})
      .then(
        (result) => send({ id, result }),
        // Handlers return errors as data; one that throws must still answer, and never crash the gateway.
        (error: unknown) => send({ id, error: `${String(request.tool)} failed: ${errorMessage(error)}` }),
      )
      .finally(() => inFlight.count--);
  }

  /** Constant-time comparison of the request's token with ours (its length is no secret). */
  private authorized(token: unknown): boolean {
    if (typeof token !== 'string' || token.length !== this.token.length) return false;
    const given = Buffer.from(token);
    return given.length === this.tokenBytes.length && timingSafeEqual(given, this.tokenBytes);
  }
}

/**
 * Sends one JSON line and closes. The descriptor is freed once the line is flushed, not when
 * the script hangs up: a script that never closes its end must not hold ours.
 */
function closeWith(socket: Socket, message: unknown): void {
  socket.end(JSON.stringify(message) + '\n');
  socket.once('finish', () => socket.destroy());
  // A peer that does not read could keep the line from flushing; it gets a moment, no more.
  const deadline = setTimeout(() => socket.destroy(), 1000).unref();
  socket.once('close', () => clearTimeout(deadline));
}
