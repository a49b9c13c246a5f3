import { createServer, type Server, type Socket } from 'node:net';
import { chmod } from 'node:fs/promises';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { FrameReader, MAX_FRAME_BYTES } from './frame-reader.js';

/** Runs one tool call for a script; the server owns framing and authentication only. */
export type RpcHandler = (tool: string, args: unknown) => Promise<unknown>;

export interface RpcServerOptions {
  transport: 'unix' | 'tcp';
  /** Socket path for the unix transport (keep it short: sun_path is ~108 bytes). */
  socketPath?: string;
  handler: RpcHandler;
}

/**
 * The gateway's end of the hermes_tools RPC: newline-delimited JSON requests
 * `{id, tool, args, token}`, answered with `{id, result}` in any order, so several threads
 * of one script can call at once over one connection.
 */
export class RpcServer {
  readonly token = randomBytes(24).toString('hex');
  private readonly tokenBytes = Buffer.from(this.token);
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  /** What the child puts in HERMES_RPC_SOCKET: a path, or tcp://127.0.0.1:PORT. */
  address = '';

  constructor(private readonly options: RpcServerOptions) {}

  async listen(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      if (this.options.transport === 'tcp') server.listen(0, '127.0.0.1', () => resolve());
      else server.listen(this.options.socketPath, () => resolve());
    });
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
    this.sockets.add(socket);
    socket.setNoDelay?.(true);
    const send = (message: unknown) => {
      if (!socket.destroyed) socket.write(JSON.stringify(message) + '\n');
    };
    const reader = new FrameReader(
      (frame) => void this.handleFrame(frame, send),
      () => {
        send({ error: `Invalid RPC request: frame larger than ${MAX_FRAME_BYTES} bytes` });
        socket.end();
      },
    );
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
  }

  private async handleFrame(frame: Buffer, send: (message: unknown) => void): Promise<void> {
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
    const result = await this.options.handler(request.tool, request.args ?? {});
    send({ id, result });
  }

  /** Constant-time comparison of the request's token with ours (its length is no secret). */
  private authorized(token: unknown): boolean {
    if (typeof token !== 'string' || token.length !== this.token.length) return false;
    const given = Buffer.from(token);
    return given.length === this.tokenBytes.length && timingSafeEqual(given, this.tokenBytes);
  }
}
