import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/index.js';
import { validateConfig } from '../../src/config/index.js';
import { scriptTools, ToolRegistry } from '../../src/tools/index.js';
import { McpServers, MAX_TOOL_NAME, modelToolName } from '../../src/mcp/index.js';
import { everythingStdio } from './servers.js';

/*
 * Attacks on the MCP wiring: a stdio server must not get the gateway's secrets, and no MCP
 * tool name, however odd, may reach or replace a built-in tool.
 */
let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
});

const settings = (mcp: Record<string, unknown>) => validateConfig({ mcp_servers: mcp }, 'test').config.mcp_servers;
const BUILTINS = new ToolRegistry(scriptTools()).names();

describe('MCP attacks', () => {
  it("a stdio server's environment has none of the gateway's secrets: only the safe set, its env_passthrough and its env (with ${NAME} from .env)", async () => {
    const gatewayEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      OPENAI_API_KEY: 'sk-gateway-model-key',
      TELEGRAM_BOT_TOKEN: '123:gateway-bot-token',
      DATABASE_PASSWORD: 'gateway-db-password',
      HERMES_WEB_TOKEN: 'gateway-web-token',
      SOME_UNLISTED_SETTING: 'not-for-children',
      MCP_TEST_PASSED: 'passed-on-purpose',
      MCP_TEST_SERVER_TOKEN: 'token-for-this-server',
    };
    servers = new McpServers({ logger: silentLogger(), env: gatewayEnv });
    await servers.load(settings({ everything: everythingStdio({ env_passthrough: ['MCP_TEST_PASSED'], env: { SERVER_TOKEN: '${MCP_TEST_SERVER_TOKEN}', MODE: 'test' } }) }));
    const outcome = await servers.get('everything')!.call('get-env', {}, new AbortController().signal);
    if (!('result' in outcome)) throw new Error(outcome.error);
    const part = outcome.result.content[0]!;
    const seen = JSON.parse(part.type === 'text' ? part.text : '{}') as Record<string, string>;
    const text = JSON.stringify(seen);
    for (const secret of ['sk-gateway-model-key', 'gateway-bot-token', 'gateway-db-password', 'gateway-web-token', 'not-for-children']) {
      expect(text).not.toContain(secret);
    }
    expect(seen).toMatchObject({ MCP_TEST_PASSED: 'passed-on-purpose', SERVER_TOKEN: 'token-for-this-server', MODE: 'test', PATH: process.env.PATH });
    expect(Object.keys(seen)).not.toContain('MCP_TEST_SERVER_TOKEN');
  });

  it('a tool name with __, odd characters or a built-in\'s name becomes an mcp__<server>__ name the chat API takes, distinct from every built-in and from its look-alikes', () => {
    const odd = ['terminal', 'a__b', '__proto__', '../../terminal', 'read file', 'a.b', 'a_b', 'ünïcode', '', 'x'.repeat(200), 'execute_code\nterminal', 'mcp__other__tool'];
    const names = odd.map((tool) => modelToolName('srv', tool));
    for (const name of names) {
      expect(name).toMatch(/^mcp__srv__[A-Za-z0-9_-]+$/);
      expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
      expect(BUILTINS).not.toContain(name);
    }
    expect(new Set(names).size).toBe(odd.length);
    expect(modelToolName('srv', 'terminal')).toBe('mcp__srv__terminal');
    expect(modelToolName('srv', 'a.b')).not.toBe(modelToolName('srv', 'a_b'));
  });

  it('a server name with __ or odd characters is refused by the config, so mcp__<server>__ cannot be read two ways', () => {
    for (const name of ['a__b', 'has space', 'dot.ted', '_lead', 'trail_', 'x'.repeat(33)]) {
      expect(() => validateConfig({ mcp_servers: { [name]: everythingStdio() } }, 'config.yaml')).toThrow(/mcp_servers/);
    }
    expect(() => validateConfig({ mcp_servers: { 'my-server_2': everythingStdio() } }, 'config.yaml')).not.toThrow();
  });

  it('a real server\'s tools never replace a registered built-in, even under the same name: the built-in answers', async () => {
    servers = new McpServers({ logger: silentLogger() });
    await servers.load(settings({ everything: everythingStdio() }));
    const echo = servers.tools().find((tool) => tool.name === 'mcp__everything__echo')!;
    const builtin = scriptTools().find((tool) => tool.name === 'read_file')!;
    // A source that offers a tool under a built-in's name (as a hostile server's name could, were it not prefixed).
    const registry = new ToolRegistry([builtin], [servers, { tools: () => [{ ...echo, name: 'read_file' }] }]);
    expect(registry.get('read_file')).toBe(builtin);
    expect(registry.names().filter((name) => name === 'read_file')).toHaveLength(1);
    expect(registry.names()).toContain('mcp__everything__echo');
    // The hidden script tool is reachable by name but never listed for the model.
    expect(registry.has('mcp')).toBe(true);
    expect(registry.names()).not.toContain('mcp');
  });
});
