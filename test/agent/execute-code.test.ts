import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findExecutable, groupAlive } from '../../src/environments/index.js';
import type { Agent } from '../../src/agent/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import { harness, toolMessages, type Harness } from './harness.js';
import { readPid } from '../helpers/processes.js';

/*
 * The whole loop with the real pieces createAgent wires: the seven script tools, the
 * configured backend (local), the execute_code executor with session kernels, real Python.
 */
const hasPython = findExecutable('python3') !== undefined;
if (!hasPython && process.env.CI !== 'true') console.log('test/agent/execute-code: python3 not found; skipping');

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const realAgent = (overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Promise<Agent> => h.realAgent(overrides, env);

const code = (source: string) => ({ name: 'execute_code', arguments: { code: source } });


/** A skill that declares HERMES_TEST_ACME_API_KEY, and a script that prints what it sees of it. */
function writeAcmeSkill(home: string): void {
  mkdirSync(join(home, 'skills', 'acme'), { recursive: true });
  writeFileSync(
    join(home, 'skills', 'acme', 'SKILL.md'),
    '---\nname: acme\ndescription: Acme API\nrequired_environment_variables: [HERMES_TEST_ACME_API_KEY]\n---\nUse the key.\n',
  );
}
const SHOW_ACME_KEY = 'import os\nprint(os.environ.get("HERMES_TEST_ACME_API_KEY", "unset"))';
const VIEW_ACME = { toolCalls: [{ id: 'view', name: 'skill_view', arguments: { name: 'acme' } }] };

/**
 * One 'use acme' turn while the gateway's own environment holds HERMES_TEST_ACME_API_KEY=`key`
 * (the executor builds children from it); each script's output by its call id, as the
 * model's request number `request` carried them.
 */
async function acmeTurn(key: string, overrides: ConfigOverrides, sessionKey: string, request: number): Promise<Record<string, string | undefined>> {
  process.env.HERMES_TEST_ACME_API_KEY = key;
  try {
    const a = await realAgent(overrides);
    await a.runTurn({ sessionKey, text: 'use acme' });
  } finally {
    delete process.env.HERMES_TEST_ACME_API_KEY;
  }
  return Object.fromEntries(
    toolMessages(h.fake.requests[request].body).map((m) => [m.tool_call_id, (JSON.parse(m.content) as { output?: string }).output]),
  );
}

describe.runIf(hasPython || process.env.CI === 'true')('execute_code through the agent', () => {
  it('a script that calls read_file over RPC: the next request holds only what the script printed', async () => {
    h = await harness();
    writeFileSync(join(h.home, 'notes.txt'), 'alpha\nbeta\nSECRET-LINE-NOT-PRINTED\ngamma\n');
    h.fake.enqueue(
      {
        toolCalls: [
          {
            id: 'run',
            ...code(
              'from hermes_tools import read_file\n' +
                'r = read_file("notes.txt")\n' +
                'lines = [l for l in r["content"].splitlines() if "a" in l.lower() and "SECRET" not in l]\n' +
                'print("matching:", len(lines))\n',
            ),
          },
        ],
      },
      { text: 'Three lines match.' },
    );
    const a = await realAgent();
    expect(a.toolNames()).toEqual([
      'execute_code', 'terminal', 'read_file', 'write_file', 'search_files', 'patch', 'web_search', 'web_extract',
      'delegate_task', 'skills_list', 'skill_view', 'skill_manage', 'memory', 'session_search', 'send_file',
    ]);
    const result = await a.runTurn({ sessionKey: 'e2e:read', text: 'how many lines have an a?' });
    expect(result.text).toBe('Three lines match.');
    const tool = toolMessages(h.fake.requests[1].body)[0];
    const parsed = JSON.parse(tool.content);
    expect(parsed).toMatchObject({ status: 'success', output: 'matching: 3\n', tool_calls_made: 1 });
    expect(tool.content).not.toContain('SECRET-LINE');
    expect(h.fake.requests[0].body.tools?.find((t) => t.function.name === 'execute_code')?.function.description).toContain('read_file(');
    expect(a.sessionInfo('e2e:read')?.kernel).toBe('idle');
    // /new disposes the old session's kernel.
    const old = a.sessionInfo('e2e:read')!.sessionId;
    await a.newSession('e2e:read');
    expect(a.kernelState(old)).toBe('none');
    expect(a.sessionInfo('e2e:read')).toMatchObject({ kernel: 'none', messageCount: 0 });
  });

  it('an interrupt during a running script kills its process group and the next request carries the notice', async () => {
    h = await harness();
    h.fake.enqueue({
      toolCalls: [{ id: 'long', ...code('import os, time\nopen("pgid", "w").write(str(os.getpgid(0)))\nprint("working", flush=True)\ntime.sleep(1000)\n') }],
    });
    const a = await realAgent();
    const controller = new AbortController();
    const turn = a.runTurn({
      sessionKey: 'e2e:int',
      text: 'run the long job',
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'tool_started') {
          const wait = () => {
            try {
              if (readFileSync(join(h.home, 'pgid'), 'utf8')) return controller.abort('user sent a new message');
            } catch {
              // not written yet
            }
            setTimeout(wait, 50);
          };
          wait();
        }
      },
    });
    expect((await turn).status).toBe('interrupted');
    const pgid = readPid(join(h.home, 'pgid'));
    await expect.poll(() => groupAlive(pgid), { timeout: 10_000 }).toBe(false);

    h.fake.enqueue({ text: 'Stopped it.' });
    await a.runTurn({ sessionKey: 'e2e:int', text: 'stop that' });
    const tool = toolMessages(h.fake.requests[1].body)[0];
    expect(tool.tool_call_id).toBe('long');
    const parsed = JSON.parse(tool.content);
    expect(parsed.status).toBe('interrupted');
    expect(tool.content).toContain('[execution interrupted — user sent a new message]');
    expect(String(h.fake.requests[1].body.messages.at(-1)!.content)).toContain('previous turn was interrupted (user sent a new message)');
  });

  it('a subagent has its own kernel and cannot see its parent\'s variables', async () => {
    h = await harness();
    h.fake.enqueue(
      { toolCalls: [{ id: 'set', ...code('parent_secret = 41 + 1\nprint(parent_secret)') }] },
      { toolCalls: [{ id: 'del', name: 'delegate_task', arguments: { goal: 'print parent_secret' } }] },
      // the subagent
      { toolCalls: [{ id: 'peek', ...code('try:\n    print(parent_secret)\nexcept NameError:\n    print("not defined here")') }] },
      { text: 'It is not defined in my kernel.' },
      // back to the parent
      { toolCalls: [{ id: 'again', ...code('print(parent_secret)') }] },
      { text: 'done' },
    );
    const a = await realAgent();
    let childKernel: string | undefined;
    await a.runTurn({
      sessionKey: 'e2e:child',
      text: 'go',
      onEvent: (event) => {
        if (event.type === 'tool_finished' && event.name === 'delegate_task') childKernel = a.sessionInfo('e2e:child')?.sessionId;
      },
    });
    // The subagent's kernel lived as long as the subagent: its owner has none now, the parent keeps its own.
    expect(a.kernelState(`${childKernel}::child::1`)).toBe('none');
    expect(a.sessionInfo('e2e:child')?.kernel).toBe('idle');
    const childSaw = JSON.parse(toolMessages(h.fake.requests[3].body)[0].content);
    expect(childSaw.output).toBe('not defined here\n');
    const delegated = toolMessages(h.fake.requests[4].body).find((m) => m.tool_call_id === 'del')!;
    expect(JSON.parse(delegated.content)).toEqual({ status: 'completed', summary: 'It is not defined in my kernel.' });
    const parentKept = toolMessages(h.fake.requests[5].body).find((m) => m.tool_call_id === 'again')!;
    expect(JSON.parse(parentKept.content).output).toBe('42\n');
  });

  it("a skill's variable reaches a script only after skill_view (a running kernel after reset: true)", async () => {
    h = await harness();
    writeAcmeSkill(h.home);
    const show = SHOW_ACME_KEY;
    h.fake.enqueue(
      { toolCalls: [{ id: 'before', ...code(show) }] },
      VIEW_ACME,
      { toolCalls: [{ id: 'same-kernel', ...code(show) }] },
      { toolCalls: [{ id: 'after-reset', name: 'execute_code', arguments: { code: show, reset: true } }] },
      { text: 'done' },
    );
    const outputs = await acmeTurn('acme-123', {}, 'e2e:skill', 4);
    expect(outputs.before).toBe('unset\n');
    expect(outputs['same-kernel']).toBe('unset\n');
    expect(outputs['after-reset']).toBe('acme-123\n');
  });
});

describe.runIf(hasPython || process.env.CI === 'true')('execute_code without session kernels', () => {
  it("a skill's variable reaches the very next script after skill_view", async () => {
    h = await harness();
    writeAcmeSkill(h.home);
    const show = SHOW_ACME_KEY;
    h.fake.enqueue({ toolCalls: [{ id: 'before', ...code(show) }] }, VIEW_ACME, { toolCalls: [{ id: 'after', ...code(show) }] }, { text: 'done' });
    const outputs = await acmeTurn('acme-456', { code_execution: { session_kernels: false } }, 'e2e:skill-per-call', 3);
    expect(outputs).toMatchObject({ before: 'unset\n', after: 'acme-456\n' });
  });
});
