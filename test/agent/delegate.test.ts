import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/index.js';
import type { RecordedRequest } from '../fakes/openai-server.js';
import { harness, registryOf, shellTool, toolMessages, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => h?.cleanup());

const isChild = (request: RecordedRequest) => String(request.body.messages[0].content).includes('You are a Hermes subagent');
const lastMessage = (request: RecordedRequest) => request.body.messages.at(-1)!;

/** Counts how many calls run at once. */
function gaugeTool() {
  const gauge = { active: 0, max: 0 };
  const tool = defineTool({
    name: 'work',
    description: 'Do some work',
    args: z.object({}),
    async run() {
      gauge.active++;
      gauge.max = Math.max(gauge.max, gauge.active);
      await new Promise((resolve) => setTimeout(resolve, 150));
      gauge.active--;
      return { ok: true };
    },
  });
  return { gauge, tool };
}

describe('delegate_task', () => {
  it('runs a subagent with a fresh history and returns its final summary', async () => {
    h = await harness();
    h.fake.enqueue(
      { toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { goal: 'Count the files', context: 'The folder is /srv/data' } }] },
      { text: 'There are 3 files.' }, // the subagent's answer
      { text: 'The subagent found 3 files.' },
    );
    const agent = h.agent({ registry: registryOf(shellTool()) });
    await agent.runTurn({ sessionKey: 'parent', text: 'secret parent context: 1234' });
    const child = h.fake.requests[1];
    expect(isChild(child)).toBe(true);
    expect(child.body.messages.slice(1)).toEqual([{ role: 'user', content: 'Count the files\n\nContext:\nThe folder is /srv/data' }]);
    expect(JSON.stringify(child.body.messages)).not.toContain('1234');
    // Depth 1 by default: the subagent cannot delegate again.
    expect(child.body.tools?.map((t) => t.function.name)).toEqual(['terminal', 'skills_list', 'skill_view', 'skill_manage', 'memory', 'session_search']);
    expect(JSON.parse(toolMessages(h.fake.requests[2].body)[0].content)).toEqual({ status: 'completed', summary: 'There are 3 files.' });
  });

  it('gives the subagent only the tools asked for, within the parent\'s', async () => {
    h = await harness();
    h.fake.enqueue(
      { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'look', tools: ['skills_list', 'not_a_tool'] } }] },
      { text: 'looked' },
      { text: 'done' },
    );
    await h.agent({ registry: registryOf(shellTool()) }).runTurn({ sessionKey: 'p', text: 'go' });
    expect(h.fake.requests[1].body.tools?.map((t) => t.function.name)).toEqual(['skills_list']);
  });

  it('runs parallel delegations at most agent.max_concurrent_children at once', async () => {
    h = await harness({
      fallback: {
        respond: (request) => {
          if (!isChild(request)) {
            return lastMessage(request).role === 'user'
              ? { toolCalls: ['a', 'b', 'c', 'd'].map((goal) => ({ name: 'delegate_task', arguments: { goal: `job ${goal}` } })) }
              : { text: 'all four done' };
          }
          return lastMessage(request).role === 'user'
            ? { toolCalls: [{ name: 'work', arguments: {} }] }
            : { text: `finished ${String(request.body.messages[1].content)}` };
        },
      },
    });
    const { gauge, tool } = gaugeTool();
    const agent = h.agent({ registry: registryOf(tool), config: { agent: { max_concurrent_children: 2 } } });
    const result = await agent.runTurn({ sessionKey: 'p', text: 'four jobs' });
    expect(result.text).toBe('all four done');
    expect(gauge.max).toBe(2);
    const summaries = toolMessages(h.fake.requests.at(-1)!.body).map((m) => JSON.parse(m.content).summary);
    expect(summaries).toEqual(['finished job a', 'finished job b', 'finished job c', 'finished job d']);
  });

  it('stops when the parent\'s signal aborts', async () => {
    h = await harness();
    h.fake.enqueue(
      { toolCalls: [{ id: 'd', name: 'delegate_task', arguments: { goal: 'sleep' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1000' } }] },
    );
    const agent = h.agent({ registry: registryOf(shellTool()) });
    const controller = new AbortController();
    const turn = agent.runTurn({ sessionKey: 'p', text: 'go', signal: controller.signal });
    await h.fake.waitForRequests(2);
    setTimeout(() => controller.abort('user sent a new message'), 200);
    expect((await turn).status).toBe('interrupted');
    h.fake.enqueue({ text: 'ok' });
    await agent.runTurn({ sessionKey: 'p', text: 'next' });
    const tool = toolMessages(h.fake.requests.at(-1)!.body)[0];
    expect(JSON.parse(tool.content)).toEqual({ status: 'interrupted', error: '[subagent interrupted — user sent a new message]' });
  });

  it('offers delegate_task only above agent.max_delegate_depth', async () => {
    h = await harness({
      fallback: {
        respond: (request) => {
          const depth = request.body.tools?.some((t) => t.function.name === 'delegate_task') ? 'can' : 'cannot';
          if (lastMessage(request).role === 'user') {
            return depth === 'can' ? { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'deeper' } }] } : { text: 'leaf done' };
          }
          return { text: `summary from ${depth}` };
        },
      },
    });
    const agent = h.agent({ config: { agent: { max_delegate_depth: 2 } } });
    const result = await agent.runTurn({ sessionKey: 'p', text: 'go deep' });
    expect(result.text).toBe('summary from can');
    // top level and the first child may delegate; the grandchild may not.
    const offered = h.fake.requests.map((r) => r.body.tools?.some((t) => t.function.name === 'delegate_task'));
    expect(offered).toEqual([true, true, false, true, true]);
  });
});
