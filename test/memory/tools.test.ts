import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/sessions/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { MemoryService, type Person } from '../../src/memory/index.js';
import { memoryTool, sessionSearchTool, skillManageTool } from '../../src/tools/builtin/index.js';
import { skillTools } from '../../src/agent/index.js';
import { makeToolContext, tempDir } from '../helpers/tool-context.js';

const alice: Person = { account: 'slack', id: 'U1' };
const bob: Person = { account: 'slack', id: 'U2' };

let stores: SessionStore[] = [];
afterEach(() => {
  for (const store of stores) store.close();
  stores = [];
});

function setUp(config: Parameters<typeof makeToolContext>[0] = {}) {
  const home = tempDir('hermes-home-');
  const store = SessionStore.open(join(home, 'state.db'), { logger: silentLogger() });
  stores.push(store);
  const memory = new MemoryService({
    db: store.database,
    settings: () => ({ memory_enabled: true, user_profile_enabled: true, memory_char_limit: 2200, user_char_limit: 1375 }),
    skillsDir: join(home, 'skills'),
    logger: silentLogger(),
  });
  const session = store.currentOrCreate('slack:T:C:1');
  const ctx = makeToolContext({ home, sessionId: session.id, config: { approvals: { mode: 'off' } }, ...config });
  return { home, store, memory, session, ctx };
}

describe('the memory tool', () => {
  it("writes the turn's speaker's notes, whatever the text claims", async () => {
    const { memory, session, ctx } = setUp();
    memory.speakers.begin(session.id, alice);
    const tool = memoryTool(memory);
    const result = await tool.handler({ action: 'add', target: 'user', content: 'I am U2 (Bob); store this under user U2' }, ctx);
    expect(result).toMatchObject({ success: true });
    expect(memory.notes.entries(alice, 'user')).toEqual(['I am U2 (Bob); store this under user U2']);
    expect(memory.notes.entries(bob, 'user')).toEqual([]);
    // A subagent's and a script's calls carry the session's id with a suffix: still the speaker's.
    await tool.handler({ action: 'add', target: 'memory', content: 'from a subagent' }, { ...ctx, sessionId: `${session.id}::child::1` });
    expect(memory.notes.entries(alice, 'memory')).toEqual(['from a subagent']);
  });

  it('has no argument that names a person: one is refused, nothing is written', async () => {
    const { memory, session, ctx } = setUp();
    memory.speakers.begin(session.id, alice);
    for (const extra of [{ user_id: 'U2' }, { person: 'U2' }, { account: 'slack', id: 'U2' }]) {
      const result = await memoryTool(memory).handler({ action: 'add', target: 'user', content: 'likes tea', ...extra }, ctx);
      expect(result, JSON.stringify(extra)).toMatchObject({ error: expect.stringMatching(/Unrecognized key/i) });
    }
    expect(memory.notes.entries(alice, 'user')).toEqual([]);
    expect(memory.notes.entries(bob, 'user')).toEqual([]);
  });

  it('refuses without a speaker (a scheduled job, hermes exec) and after the turn ended', async () => {
    const { memory, session, ctx } = setUp();
    expect(await memoryTool(memory).handler({ action: 'read' }, ctx)).toMatchObject({ error: expect.stringContaining('needs a person') });
    memory.speakers.begin(session.id, alice);
    memory.speakers.end(session.id);
    expect(await memoryTool(memory).handler({ action: 'add', content: 'x' }, ctx)).toMatchObject({ error: expect.stringContaining('needs a person') });
  });

  it('applies a batch of operations all or none, the limit checked on the result', async () => {
    const { memory, session, ctx } = setUp();
    memory.speakers.begin(session.id, alice);
    const tool = memoryTool(memory);
    await tool.handler({ action: 'add', target: 'user', content: 'x'.repeat(1000) }, ctx);
    // Alone the add would pass the 1,375 limit; with the remove before it, it fits.
    const applied = await tool.handler({ target: 'user', operations: [{ action: 'remove', old_text: 'xxx' }, { action: 'add', content: 'y'.repeat(900) }] }, ctx);
    expect(applied).toMatchObject({ success: true, message: 'Applied 2 operation(s).' });
    expect(memory.notes.entries(alice, 'user')).toEqual(['y'.repeat(900)]);
    const refused = await tool.handler({ target: 'user', operations: [{ action: 'add', content: 'z' }, { action: 'remove', old_text: 'no such text' }] }, ctx);
    expect(refused).toMatchObject({ error: expect.stringContaining('Operation 2 (remove)') });
    expect(memory.notes.entries(alice, 'user')).toEqual(['y'.repeat(900)]);
  });

  it('reads both notes with their use of the limit', async () => {
    const { memory, session, ctx } = setUp();
    memory.speakers.begin(session.id, alice);
    await memoryTool(memory).handler({ action: 'add', target: 'user', content: 'Name: Alice' }, ctx);
    expect(await memoryTool(memory).handler({ action: 'read' }, ctx)).toEqual({
      success: true,
      notes: [
        { target: 'memory', entries: [], usage: '0% — 0/2,200 chars', enabled: true },
        { target: 'user', entries: ['Name: Alice'], usage: '0% — 11/1,375 chars', enabled: true },
      ],
    });
  });
});

describe('session_search', () => {
  it("answers for the turn's speaker only and leaves out the session the model sees", async () => {
    const { memory, store, ctx } = setUp();
    const old = store.currentOrCreate('slack:T:C:0');
    memory.beginTurn({ sessionId: old.id, threadKey: 'slack:T:C:0', person: bob }, memory.mark(old.id));
    store.append(old.id, { role: 'user', content: 'the vault code is walrus' });
    memory.endTurn({ sessionId: old.id, threadKey: 'slack:T:C:0', person: bob });
    const mine = store.create('slack:T:C:5');
    memory.beginTurn({ sessionId: mine.id, threadKey: 'slack:T:C:5', person: alice }, memory.mark(mine.id));
    store.append(mine.id, { role: 'user', content: 'walrus is my favourite animal' });
    memory.endTurn({ sessionId: mine.id, threadKey: 'slack:T:C:5', person: alice });

    memory.speakers.begin(ctx.sessionId, alice);
    const tool = sessionSearchTool(memory);
    const found = await tool.handler({ query: 'walrus' }, ctx);
    expect(found).toMatchObject({ success: true, count: 1, results: [{ thread: 'slack:T:C:5', snippet: '>>>walrus<<< is my favourite animal' }] });
    expect(JSON.stringify(found)).not.toContain('vault');
    memory.speakers.begin(mine.id, alice);
    expect(await tool.handler({ query: 'walrus' }, { ...ctx, sessionId: mine.id })).toMatchObject({ count: 0 });
    expect(await tool.handler({ query: 'walrus', person: 'U2' }, ctx)).toMatchObject({ error: expect.stringMatching(/Unrecognized key/i) });
  });
});

describe('skill_manage', () => {
  const body = '---\nname: deploy-app\ndescription: How to deploy the app\n---\n# Steps\n1. make ship\n';

  it('creates a skill skill_view reads, patches it, deletes it', async () => {
    const { memory, ctx, home } = setUp();
    const manage = skillManageTool(memory.skills);
    expect(await manage.handler({ action: 'create', name: 'deploy-app', content: body }, ctx)).toMatchObject({ success: true, path: join(home, 'skills', 'deploy-app', 'SKILL.md') });
    const [, view] = skillTools({ dir: join(home, 'skills'), grantPassthrough: () => undefined, env: {} });
    expect(await view.handler({ name: 'deploy-app' }, ctx)).toMatchObject({ name: 'deploy-app', description: 'How to deploy the app', content: '# Steps\n1. make ship' });
    expect(await manage.handler({ action: 'create', name: 'deploy-app', content: body }, ctx)).toMatchObject({ error: expect.stringContaining('already exists') });
    expect(await manage.handler({ action: 'patch', name: 'deploy-app', old_string: 'make ship', new_string: 'make ship ENV=prod' }, ctx)).toMatchObject({ success: true });
    expect(await view.handler({ name: 'deploy-app' }, ctx)).toMatchObject({ content: '# Steps\n1. make ship ENV=prod' });
    expect(await manage.handler({ action: 'delete', name: 'deploy-app' }, ctx)).toMatchObject({ success: true });
    expect(existsSync(join(home, 'skills', 'deploy-app'))).toBe(false);
  });

  it.each(['..', '../evil', 'a/b', 'a\\b', '../../.ssh', 'x..y', '.hidden', 'UPPER', 'with space', 'é'])('refuses the name %j', async (name) => {
    const { memory, ctx, home } = setUp();
    const result = await skillManageTool(memory.skills).handler({ action: 'create', name, content: body.replace('deploy-app', 'x') }, ctx);
    expect(result).toMatchObject({ error: expect.stringContaining('Invalid skill name') });
    expect(existsSync(join(home, 'skills'))).toBe(false);
  });

  it('takes no argument naming a person: a skill cannot be written for another user', async () => {
    const { memory, ctx, home } = setUp();
    const result = await skillManageTool(memory.skills).handler({ action: 'create', name: 'deploy-app', content: body, user_id: 'U2' }, ctx);
    expect(result).toMatchObject({ error: expect.stringMatching(/Unrecognized key/i) });
    expect(existsSync(join(home, 'skills', 'deploy-app'))).toBe(false);
  });

  it('masks a credential in a skill body', async () => {
    const { memory, ctx, home } = setUp();
    const key = `sk-proj-${'Abc123XyZ9'.repeat(4)}`;
    const result = await skillManageTool(memory.skills).handler({ action: 'create', name: 'deploy-app', content: `${body}export OPENAI_API_KEY=${key}\n` }, ctx);
    expect(result).toMatchObject({ success: true, masked: expect.stringContaining('masked') });
    const text = readFileSync(join(home, 'skills', 'deploy-app', 'SKILL.md'), 'utf8');
    expect(text).not.toContain(key);
    expect(text).toContain('[REDACTED]');
  });

  it('refuses a skill whose front matter names another skill, or has no description', async () => {
    const { memory, ctx } = setUp();
    const manage = skillManageTool(memory.skills);
    expect(await manage.handler({ action: 'create', name: 'mine', content: body }, ctx)).toMatchObject({ error: expect.stringContaining('must be the same') });
    expect(await manage.handler({ action: 'create', name: 'mine', content: '# no front matter' }, ctx)).toMatchObject({ error: expect.stringContaining('front matter') });
  });

  it('goes through the write checks: with approvals on and nobody to ask, the write is refused', async () => {
    const { memory, home, session } = setUp();
    const ctx = makeToolContext({ home, sessionId: session.id, config: { approvals: { mode: 'on' } } });
    const result = await skillManageTool(memory.skills).handler({ action: 'create', name: 'deploy-app', content: body }, ctx);
    expect(result).toMatchObject({ error: expect.stringContaining('skills') });
    expect(existsSync(join(home, 'skills', 'deploy-app'))).toBe(false);
    const asked: string[] = [];
    const approving = makeToolContext({ home, sessionId: session.id, config: { approvals: { mode: 'on' } }, requestApproval: async (request) => (asked.push(request.command), true) });
    expect(await skillManageTool(memory.skills).handler({ action: 'create', name: 'deploy-app', content: body }, approving)).toMatchObject({ success: true });
    expect(asked).toEqual([`skill_manage ${join(home, 'skills', 'deploy-app', 'SKILL.md')}`]);
  });

  it('never writes through a link in the skills folder', async () => {
    const { memory, ctx, home } = setUp();
    const outside = tempDir('hermes-outside-');
    mkdirSync(join(home, 'skills'), { recursive: true });
    symlinkSync(outside, join(home, 'skills', 'deploy-app'));
    const result = await skillManageTool(memory.skills).handler({ action: 'create', name: 'deploy-app', content: body }, ctx);
    expect(result).toMatchObject({ error: expect.stringContaining('not a plain folder') });
    expect(existsSync(join(outside, 'SKILL.md'))).toBe(false);
  });
});
