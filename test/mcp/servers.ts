import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

/*
 * The real MCP reference servers from the registry (devDependencies), started as a user
 * would: server-everything over stdio or streamable HTTP, server-filesystem on a folder.
 */
const root = packageRoot();
export const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const LOOPBACK = join(root, 'test/mcp/loopback-listen.mjs');

/** mcp_servers settings for server-everything over stdio. */
export const everythingStdio = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [EVERYTHING, 'stdio'], ...extra });

/** mcp_servers settings for server-filesystem serving `folder`. */
export const filesystemStdio = (folder: string, extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [FILESYSTEM, folder], ...extra });

/** A port nobody listens on right now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

export interface HttpEverything {
  url: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/** server-everything's streamable HTTP transport on 127.0.0.1 and a free port (or `port`); resolves once it listens. */
export async function startHttpEverything(port?: number): Promise<HttpEverything> {
  port ??= await freePort();
  const child = spawn(process.execPath, ['--import', LOOPBACK, EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything (streamableHttp) exited with ${code}: ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
