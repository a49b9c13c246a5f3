import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { hermesPaths, validateConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { McpServers, mcpStatusLines, reloadMcpServers, type McpServerStatus } from '../../src/mcp/index.js';
import { everythingStdio, startHttpEverything, type HttpEverything } from './servers.js';
import { tempFoldersPerTest } from '../helpers/temp-folders.js';

/*
 * A server's life: started, killed, reported, started again; one that cannot start is
 * reported and takes nothing else down; /reload-mcp applies a changed config.yaml.
 */
const tempFolder = tempFoldersPerTest();
let servers: McpServers | undefined;
let http: HttpEverything | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
  await http?.close();
  http = undefined;
});

const settings = (mcp: Record<string, unknown>) => validateConfig({ mcp_servers: mcp }, 'test').config.mcp_servers;
const signal = () => new AbortController().signal;

/** Resolves when `check` holds for a change `servers` reports (or already holds for the last one). */
function waitFor(changes: McpServerStatus[], check: (status: McpServerStatus) => boolean): Promise<McpServerStatus> {
  return new Promise((resolve) => {
    const poll = () => {
      const found = changes.find(check);
      if (found) resolve(found);
      else setTimeout(poll, 20);
    };
    poll();
  });
}

describe('MCP server lifecycle', () => {
  it('a killed stdio server is reported as failed (it exited) and started again with backoff; its tools work again', async () => {
    const changes: McpServerStatus[] = [];
    servers = new McpServers({ logger: silentLogger(), onChange: (status) => changes.push(status) });
    await servers.load(settings({ everything: everythingStdio() }));
    const [up] = servers.status();
    expect(up).toMatchObject({ name: 'everything', state: 'ready', restarts: 0 });
    expect(up!.pid).toBeGreaterThan(0);

    changes.length = 0;
    process.kill(up!.pid!, 'SIGKILL');
    const down = await waitFor(changes, (status) => status.state === 'failed');
    expect(down.error).toMatch(/exited/);
    expect(down.restarts).toBe(1);
    expect(down.retryAt).toBeGreaterThan(0);
    expect(mcpStatusLines([down])[0]).toMatch(/^MCP everything: failed \(stdio, restarted 1×\): the server exited.*; next try in \d+ s$/);

    const again = await waitFor(changes, (status) => status.state === 'ready');
    expect(again.restarts).toBe(1);
    expect(again.pid).not.toBe(up!.pid);
    const echo = await servers.get('everything')!.call('echo', { message: 'back' }, signal());
    expect(echo).toEqual({ result: { content: [{ type: 'text', text: 'Echo: back' }] } });
  }, 60_000);

  it('a streamable HTTP server that went away is noticed without a call (its event stream breaks, the ping goes unanswered) and reported failed', async () => {
    const changes: McpServerStatus[] = [];
    http = await startHttpEverything();
    servers = new McpServers({ logger: silentLogger(), onChange: (status) => changes.push(status) });
    await servers.load(settings({ web: { url: http.url } }));
    expect(servers.status()[0]).toMatchObject({ state: 'ready', transport: 'http' });
    changes.length = 0;
    await http.close();
    const down = await waitFor(changes, (status) => status.state === 'failed');
    expect(down).toMatchObject({ name: 'web', restarts: 1 });
    expect(mcpStatusLines([down])[0]).toMatch(/^MCP web: failed \(http, restarted 1×\): /);
  }, 60_000);

  it('a streamable HTTP server that went away: a call gets an error, the server is reported failed, and it is reconnected once it is back', async () => {
    const changes: McpServerStatus[] = [];
    http = await startHttpEverything();
    const port = Number(new URL(http.url).port);
    servers = new McpServers({ logger: silentLogger(), onChange: (status) => changes.push(status) });
    await servers.load(settings({ web: { url: http.url } }));
    expect(servers.status()[0]).toMatchObject({ state: 'ready', transport: 'http' });

    await http.close();
    changes.length = 0;
    const lost = await servers.get('web')!.call('echo', { message: 'gone' }, signal());
    // Whichever comes first, the call or the check after the broken event stream, the call is answered with an error.
    expect(lost).toMatchObject({ error: expect.stringMatching(/^MCP server web (could not be reached for echo: .*; it is being reconnected|is down: .*|is still starting; try again in a moment)$/) });
    const down = await waitFor(changes, (status) => status.state === 'failed');
    expect(down.restarts).toBe(1);
    expect(down.error).toBeTruthy();

    http = await startHttpEverything(port);
    await waitFor(changes, (status) => status.state === 'ready');
    expect(await servers.get('web')!.call('echo', { message: 'back' }, signal())).toEqual({ result: { content: [{ type: 'text', text: 'Echo: back' }] } });
  }, 60_000);

  it('a server that cannot start is reported with the reason and retried, and the other servers\' tools are offered as usual', async () => {
    servers = new McpServers({ logger: silentLogger() });
    await servers.load(settings({ broken: { command: '/nonexistent/mcp-server-binary' }, everything: everythingStdio() }));
    const byName = Object.fromEntries(servers.status().map((status) => [status.name, status]));
    expect(byName.broken).toMatchObject({ state: 'failed', tools: 0 });
    expect(byName.broken!.error).toMatch(/ENOENT/);
    expect(byName.broken!.retryAt).toBeGreaterThan(0);
    expect(byName.everything).toMatchObject({ state: 'ready' });
    const names = servers.tools().map((tool) => tool.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names.some((name) => name.startsWith('mcp__broken__'))).toBe(false);
    const refused = await servers.get('broken')!.call('anything', {}, signal());
    expect(refused).toMatchObject({ error: expect.stringMatching(/^MCP server broken is down: .*ENOENT.*; the next try is in \d+ s$/) });
  });

  it('an env or header value naming a variable that is not set fails that server with the key named', async () => {
    servers = new McpServers({ logger: silentLogger(), env: { PATH: process.env.PATH } });
    await servers.load(settings({ everything: everythingStdio({ env: { TOKEN: '${MCP_TEST_UNSET_TOKEN}' } }) }));
    expect(servers.status()[0]!.error).toContain('mcp_servers.everything.env.TOKEN names ${MCP_TEST_UNSET_TOKEN}, which is set neither in HERMES_HOME/.env nor in the environment');
    await servers.load(settings({ web: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${MCP_TEST_UNSET_TOKEN}' } } }));
    expect(servers.status()[0]!.error).toContain('mcp_servers.web.headers.Authorization names ${MCP_TEST_UNSET_TOKEN}');
  });

  it('a ${NAME} is read from HERMES_HOME/.env: /reload-mcp loads it, and the server gets the value', async () => {
    const home = tempFolder('hermes-mcp-dotenv-');
    const paths = hermesPaths(home);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
    writeFileSync(paths.env, 'MCP_TEST_DOTENV_TOKEN=from-the-dotenv-file\n');
    writeFileSync(paths.config, stringify({ mcp_servers: { everything: everythingStdio({ env: { SERVER_TOKEN: '${MCP_TEST_DOTENV_TOKEN}' } }) } }));
    servers = new McpServers({ logger: silentLogger(), env });
    expect(await reloadMcpServers(servers, paths)).toMatch(/^MCP servers reloaded: started everything\./);
    const outcome = await servers.get('everything')!.call('get-env', {}, signal());
    if (!('result' in outcome)) throw new Error(outcome.error);
    const part = outcome.result.content[0]!;
    expect(JSON.parse(part.type === 'text' ? part.text : '{}')).toMatchObject({ SERVER_TOKEN: 'from-the-dotenv-file' });
  });

  it('/reload-mcp reads config.yaml again: a new server starts, a changed one restarts, a removed one stops; an invalid file changes nothing', async () => {
    const home = tempFolder('hermes-mcp-reload-');
    const paths = hermesPaths(home);
    servers = new McpServers({ logger: silentLogger() });
    await servers.load(settings({ one: everythingStdio(), two: everythingStdio() }));

    writeFileSync(paths.config, stringify({ mcp_servers: { one: everythingStdio({ tools: { exclude: ['echo'] } }), three: everythingStdio() } }));
    const reply = await reloadMcpServers(servers, paths);
    expect(reply.split('\n')[0]).toBe('MCP servers reloaded: started three; restarted one; stopped two.');
    expect(servers.status().map((status) => [status.name, status.state])).toEqual([
      ['one', 'ready'],
      ['three', 'ready'],
    ]);
    const names = servers.tools().map((tool) => tool.name);
    expect(names).not.toContain('mcp__one__echo');
    expect(names).toContain('mcp__three__echo');

    writeFileSync(paths.config, stringify({ mcp_servers: { 'bad__name': everythingStdio() } }));
    const refused = await reloadMcpServers(servers, paths);
    expect(refused).toMatch(/^MCP servers not reloaded: .*bad__name.*Nothing was changed\.$/s);
    expect(servers.status().map((status) => status.name)).toEqual(['one', 'three']);
  }, 60_000);
});
