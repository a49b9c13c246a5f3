import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Agent } from '../../src/agent/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import { harness, toolMessages, type Harness } from '../agent/harness.js';
import { everythingStdio, filesystemStdio, startHttpEverything, type HttpEverything } from './servers.js';
import { tempFoldersPerTest } from '../helpers/temp-folders.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';

/*
 * The model calls MCP tools of the real reference servers: server-everything over stdio
 * and over streamable HTTP, server-filesystem on a temp folder. The fake model makes the
 * tool calls; the agent is the one createAgent wires.
 */
const tempFolder = tempFoldersPerTest();
let h: Harness;
let http: HttpEverything | undefined;
const keep = releaseAfterEach();

const realAgent = (overrides: ConfigOverrides): Promise<Agent> => h.realAgent(overrides);

/** The tool result the model was sent for the call with `id`. */
async function resultOf(id: string, requestIndex = 1): Promise<unknown> {
  const request = await h.fake.waitForRequests(requestIndex + 1);
  const message = toolMessages(request.body).find((m) => m.tool_call_id === id);
  if (!message) throw new Error(`no tool result for ${id}`);
  return JSON.parse(message.content);
}

describe('MCP tools for the model', () => {
  it('server-everything over stdio: its tools are offered as mcp__everything__<tool> with their schemas, and a call returns the MCP content', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    h.fake.enqueue({ toolCalls: [{ id: 'sum', name: 'mcp__everything__get-sum', arguments: { a: 2, b: 40 } }] }, { text: 'done' });
    const running = await realAgent({ mcp_servers: { everything: everythingStdio() } } as ConfigOverrides);
    expect(running.mcpStatus()).toMatchObject([{ name: 'everything', transport: 'stdio', state: 'ready' }]);
    const turn = await running.runTurn({ sessionKey: 'web:mcp-stdio', text: 'add 2 and 40' });
    expect(turn.text).toBe('done');
    const first = h.fake.requests[0]!.body;
    const sum = first.tools?.find((tool) => tool.function.name === 'mcp__everything__get-sum');
    expect(sum?.function.parameters).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } });
    expect(first.tools?.map((tool) => tool.function.name)).toContain('execute_code');
    expect(await resultOf('sum')).toEqual({ content: [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }] });
  });

  it('server-everything over streamable HTTP on 127.0.0.1: the model calls echo through it', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    http = keep(await startHttpEverything(), (fake) => fake.close());
    h.fake.enqueue({ toolCalls: [{ id: 'echo', name: 'mcp__web__echo', arguments: { message: 'over http' } }] }, { text: 'ok' });
    const running = await realAgent({ mcp_servers: { web: { url: http.url } } } as ConfigOverrides);
    expect(running.mcpStatus()).toMatchObject([{ name: 'web', transport: 'http', state: 'ready' }]);
    await running.runTurn({ sessionKey: 'web:mcp-http', text: 'echo' });
    expect(await resultOf('echo')).toEqual({ content: [{ type: 'text', text: 'Echo: over http' }] });
  });

  it('server-filesystem on a temp folder: the model reads a file through it, and tools.include leaves out the rest', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    const folder = tempFolder('hermes-mcp-fs-');
    writeFileSync(join(folder, 'note.txt'), 'from the filesystem server\n');
    h.fake.enqueue({ toolCalls: [{ id: 'read', name: 'mcp__files__read_text_file', arguments: { path: join(folder, 'note.txt') } }] }, { text: 'read' });
    const running = await realAgent({
      mcp_servers: { files: filesystemStdio(folder, { tools: { include: ['read_text_file', 'list_directory'] } }) },
    } as ConfigOverrides);
    await running.runTurn({ sessionKey: 'web:mcp-fs', text: 'read the note' });
    const names = h.fake.requests[0]!.body.tools!.map((tool) => tool.function.name).filter((name) => name.startsWith('mcp__'));
    expect(names.sort()).toEqual(['mcp__files__list_directory', 'mcp__files__read_text_file']);
    expect(await resultOf('read')).toMatchObject({ content: [{ type: 'text', text: 'from the filesystem server\n' }] });
  });
});
