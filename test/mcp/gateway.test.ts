import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { Agent } from '../../src/agent/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import { Gateway } from '../../src/gateway/index.js';
import { harness, type Harness } from '../agent/harness.js';
import { RecordingAdapter, message, testConfig, until } from '../gateway/helpers.js';
import { everythingStdio } from './servers.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';

/* /status names each MCP server and its state; /reload-mcp (or /reload_mcp) applies config.yaml's mcp_servers. */
let h: Harness;
/** The agent of the test's gateway (h.cleanup closes it). */
let agent: Agent | undefined;
let gateway: Gateway | undefined;
const keep = releaseAfterEach();

async function setup(overrides: ConfigOverrides) {
  h = keep(await harness(), (made) => made.cleanup());
  agent = await h.realAgent(overrides);
  const adapter = new RecordingAdapter();
  gateway = keep(new Gateway({ agent, config: testConfig(), env: { GATEWAY_ALLOW_ALL_USERS: 'true' } }), (made) => made.stop());
  gateway.register(adapter);
  await gateway.start();
  return adapter;
}

/** Sends `text` and returns the reply it got. */
async function ask(adapter: RecordingAdapter, text: string): Promise<string> {
  const before = adapter.textsTo('test:a').length;
  await gateway!.dispatch(message(text));
  await until(() => adapter.textsTo('test:a').length > before, `a reply to ${text}`);
  return adapter.textsTo('test:a').at(-1)!;
}

describe('MCP in the gateway', () => {
  it('/status reports each server: ready with its tools, then after a kill restarted, and a broken one with its reason', async () => {
    const adapter = await setup({ mcp_servers: { everything: everythingStdio({ scripts: true }), broken: { command: '/nonexistent/mcp-server-binary' } } } as ConfigOverrides);
    const status = await ask(adapter, '/status');
    expect(status).toMatch(/^MCP everything: ready \(stdio, \d+ tools, scripts\)$/m);
    expect(status).toMatch(/^MCP broken: failed \(stdio\): .*ENOENT.*; next try in \d+ s$/m);

    process.kill(agent!.mcpStatus().find((server) => server.name === 'everything')!.pid!, 'SIGKILL');
    await until(() => agent!.mcpStatus().some((server) => server.name === 'everything' && server.state === 'ready' && server.restarts === 1), 'the restart');
    expect(await ask(adapter, '/status')).toMatch(/^MCP everything: ready \(stdio, \d+ tools, scripts, restarted 1×\)$/m);
  }, 60_000);

  it('/reload-mcp starts a server added to config.yaml and stops a removed one; /reload_mcp is the same command', async () => {
    const adapter = await setup({ mcp_servers: { one: everythingStdio() } } as ConfigOverrides);
    writeFileSync(h.paths.config, stringify({ mcp_servers: { two: everythingStdio() } }));
    const reply = await ask(adapter, '/reload-mcp');
    expect(reply).toMatch(/^MCP servers reloaded: started two; stopped one\.\nMCP two: ready \(stdio, \d+ tools\)$/);
    expect(agent!.toolNames()).toContain('mcp__two__echo');
    expect(agent!.toolNames()).not.toContain('mcp__one__echo');
    expect(await ask(adapter, '/reload_mcp')).toMatch(/^MCP servers reloaded: unchanged two\./);
  }, 60_000);
});
