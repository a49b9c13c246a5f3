import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { buildChildEnv } from '../environments/index.js';
import type { Logger } from '../shared/logger.js';
import { expandRefs } from './refs.js';
import type { McpServerSettings } from './types.js';

/** Lines of a stdio server's stderr kept to explain why it failed. */
const STDERR_LINES = 20;

export interface OpenedTransport {
  transport: Transport;
  /** The stdio server's process id once started (tests kill it; /status shows it). */
  pid(): number | undefined;
  /** The last lines the stdio server wrote to stderr. */
  stderrTail(): string;
}

/**
 * The SDK transport for one server. A stdio server's environment is built like every
 * child's (buildChildEnv: secrets out, a small safe set in) with the server's own
 * `env_passthrough` and `env`; `terminal.env_passthrough` is not applied. Header and env
 * values may name .env variables as `${NAME}`.
 */
export function openTransport(name: string, settings: McpServerSettings, env: NodeJS.ProcessEnv, logger: Logger): OpenedTransport {
  const where = `mcp_servers.${name}`;
  if (settings.url !== '') {
    const headers = expandRefs(settings.headers, env, `${where}.headers`);
    const transport = new StreamableHTTPClientTransport(new URL(settings.url), { requestInit: { headers } });
    return { transport, pid: () => undefined, stderrTail: () => '' };
  }
  const childEnv = buildChildEnv({
    source: env,
    passthrough: settings.env_passthrough,
    extra: expandRefs(settings.env, env, `${where}.env`),
    logger,
    label: `mcp server ${name}`,
  });
  const transport = new StdioClientTransport({ command: settings.command, args: settings.args, env: childEnv, stderr: 'pipe' });
  const tail: string[] = [];
  let partial = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      logger.debug({ mcp: name }, line);
      tail.push(line);
      if (tail.length > STDERR_LINES) tail.shift();
    }
  });
  return {
    transport,
    pid: () => transport.pid ?? undefined,
    stderrTail: () => [...tail, partial].filter((line) => line.trim() !== '').slice(-5).join('\n'),
  };
}
