import { describe, expect, it } from 'vitest';
import { statSync, writeFileSync, chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApprovalQueue, ApprovalRules, approvalKey, normalizedForm, type ApprovalOutcome, type ApprovalPerson } from '../../src/approvals/index.js';
import { tempDir } from '../helpers/tool-context.js';

const request = { command: 'git reset --hard', reason: 'git reset --hard discards uncommitted work' };
const ada: ApprovalPerson = { platform: 'telegram', id: '1001', name: 'ada' };
const bob: ApprovalPerson = { platform: 'telegram', id: '2002', name: 'bob' };

/** Ada asks `request` in thread t; it is the one pending there, and she denies it. The outcome. */
function askAndDeny(queue: ApprovalQueue, request: { command: string; reason: string }): Promise<ApprovalOutcome> {
  const outcome = queue.ask({ sessionKey: 't', request, requester: ada });
  expect(queue.pending('t')).toEqual(request);
  queue.answer('t', ada, { approved: false });
  return outcome;
}
const root: ApprovalPerson = { platform: 'telegram', id: '9009', name: 'root' };

describe('ApprovalQueue', () => {
  it('resolves approved after an answer from the requester, and denied after a denial', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const first = queue.ask({ sessionKey: 't1', request, requester: ada });
    expect(queue.pending('t1')).toEqual(request);
    expect(queue.answer('t1', ada, { approved: true, scope: 'once' })).toMatchObject({ kind: 'answered', outcome: { kind: 'approved', scope: 'once' } });
    expect(await first).toEqual({ kind: 'approved', by: ada, scope: 'once' });
    const second = queue.ask({ sessionKey: 't1', request, requester: ada });
    queue.answer('t1', ada, { approved: false });
    expect(await second).toEqual({ kind: 'denied', by: ada });
    expect(queue.pending('t1')).toBeUndefined();
    expect(queue.answer('t1', ada, { approved: true, scope: 'once' })).toEqual({ kind: 'nothing_waiting' });
  });

  it('refuses an answer from someone else in the thread and keeps the request waiting; an admin may answer', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000, admins: { telegram: ['9009'], slack: ['1001'] } });
    const waiting = queue.ask({ sessionKey: 'group', request, requester: ada });
    expect(queue.answer('group', bob, { approved: true, scope: 'once' })).toEqual({ kind: 'not_yours', requester: ada });
    // The same id on another platform is someone else; an admin of slack is no admin on telegram.
    expect(queue.answer('group', { platform: 'slack', id: '1001' }, { approved: true, scope: 'once' })).toEqual({ kind: 'not_yours', requester: ada });
    expect(queue.pending('group')).toEqual(request);
    expect(queue.answer('group', root, { approved: false })).toMatchObject({ kind: 'answered' });
    expect(await waiting).toEqual({ kind: 'denied', by: root });
  });

  it('answers a thread\'s requests oldest first and keeps threads apart', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const one = queue.ask({ sessionKey: 't', request: { command: 'one', reason: 'r' }, requester: ada });
    const two = queue.ask({ sessionKey: 't', request: { command: 'two', reason: 'r' }, requester: ada });
    const other = queue.ask({ sessionKey: 'u', request, requester: bob });
    expect(queue.pending('t')?.command).toBe('one');
    queue.answer('t', ada, { approved: false });
    queue.answer('t', ada, { approved: true, scope: 'once' });
    expect([(await one).kind, (await two).kind]).toEqual(['denied', 'approved']);
    expect(queue.pending('u')).toEqual(request);
    queue.answer('u', bob, { approved: true, scope: 'once' });
    expect((await other).kind).toBe('approved');
  });

  it('refuses when no answer comes within the timeout, and removes the request', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 50 });
    expect(await queue.ask({ sessionKey: 't', request, requester: ada })).toEqual({ kind: 'timed_out' });
    expect(queue.size('t')).toBe(0);
    expect(queue.answer('t', ada, { approved: true, scope: 'once' })).toEqual({ kind: 'nothing_waiting' });
  });

  it('cancels at once when the turn\'s signal or the request\'s own signal aborts, or one already has', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const turn = new AbortController();
    const waiting = queue.ask({ sessionKey: 't', request, requester: ada, signal: turn.signal });
    turn.abort('stopped');
    expect(await waiting).toEqual({ kind: 'cancelled' });
    expect(queue.size('t')).toBe(0);
    const call = new AbortController();
    const second = queue.ask({ sessionKey: 't', request: { ...request, signal: call.signal }, requester: ada, signal: new AbortController().signal });
    call.abort('script timed out');
    expect(await second).toEqual({ kind: 'cancelled' });
    expect(await queue.ask({ sessionKey: 't', request, requester: ada, signal: turn.signal })).toEqual({ kind: 'cancelled' });
    expect(queue.size('t')).toBe(0);
  });

  it('a request whose message cannot be shown ends at once, and the next one is answered (no stale entry)', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const failed = await queue.ask({
      sessionKey: 't',
      request: { command: 'first', reason: 'r' },
      requester: ada,
      announce: async () => {
        throw new Error('chat.postMessage: channel_not_found');
      },
    });
    expect(failed).toEqual({ kind: 'undelivered', error: 'chat.postMessage: channel_not_found' });
    expect(queue.size('t')).toBe(0);
    const next = queue.ask({ sessionKey: 't', request: { command: 'second', reason: 'r' }, requester: ada, announce: async () => {} });
    expect(queue.pending('t')?.command).toBe('second');
    expect(queue.answer('t', ada, { approved: true, scope: 'once' })).toMatchObject({ kind: 'answered', request: { command: 'second' } });
    expect(await next).toMatchObject({ kind: 'approved' });
  });

  it('"this session" allows the same request again without asking until endSession (/new); another command still asks', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const rm = { command: 'rm -rf build', reason: 'recursive delete' };
    const first = queue.ask({ sessionKey: 't', request: rm, requester: ada });
    queue.answer('t', ada, { approved: true, scope: 'session' });
    expect(await first).toMatchObject({ kind: 'approved', scope: 'session' });
    expect(queue.sessionGrants('t')).toBe(1);
    expect(await queue.ask({ sessionKey: 't', request: { ...rm, command: 'rm  -rf   build ' }, requester: ada })).toEqual({ kind: 'preapproved', via: 'session' });
    // Another thread, another command: both ask.
    const elsewhere = queue.ask({ sessionKey: 'u', request: rm, requester: ada });
    expect(queue.pending('u')).toEqual(rm);
    queue.answer('u', ada, { approved: false });
    await elsewhere;
    const dist = askAndDeny(queue, { ...rm, command: 'rm -rf dist' });
    await dist;
    queue.endSession('t');
    const after = askAndDeny(queue, rm);
    expect((await after).kind).toBe('denied');
  });

  it('"always" keeps a rule in a 0600 file that a new queue (a restart) reads; forgetting it asks again', async () => {
    const home = tempDir('hermes-rules-');
    const file = join(home, 'approvals.yaml');
    const rm = { command: 'rm -rf build', reason: 'recursive delete' };
    const before = new ApprovalQueue({ timeoutMs: 60_000, rules: new ApprovalRules({ file }) });
    const first = before.ask({ sessionKey: 't', request: rm, requester: ada });
    expect(before.answer('t', ada, { approved: true, scope: 'always' })).toMatchObject({ outcome: { scope: 'always', rule: 1 } });
    expect(await first).toMatchObject({ kind: 'approved', scope: 'always', rule: 1 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('match: rm -rf build');

    const after = new ApprovalQueue({ timeoutMs: 60_000, rules: new ApprovalRules({ file }) });
    expect(await after.ask({ sessionKey: 'other-thread', request: rm, requester: bob })).toEqual({ kind: 'preapproved', via: 'rule', rule: 1 });
    expect(after.rules.list()).toEqual([expect.objectContaining({ kind: 'command', reason: 'recursive delete', match: 'rm -rf build', shown: 'rm -rf build', by: 'telegram:1001 (ada)' })]);
    // The rule is one command, not every recursive delete, nor the same command for another reason.
    const dist = askAndDeny(after, { ...rm, command: 'rm -rf dist' });
    await dist;
    const otherReason = askAndDeny(after, { ...rm, reason: 'writes to ~/.ssh' });
    await otherReason;

    expect(after.rules.remove(1)).toMatchObject({ match: 'rm -rf build' });
    const third = new ApprovalQueue({ timeoutMs: 60_000, rules: new ApprovalRules({ file }) });
    const asked = askAndDeny(third, rm);
    expect((await asked).kind).toBe('denied');
  });

  it('ignores a rules file others may write, or a malformed one, and then asks (fails closed)', async () => {
    const home = tempDir('hermes-rules-');
    const file = join(home, 'approvals.yaml');
    const rm = { command: 'rm -rf build', reason: 'recursive delete' };
    writeFileSync(file, `rules:\n  - { kind: command, reason: recursive delete, match: rm -rf build, shown: x, by: eve, added: now }\n`, { mode: 0o666 });
    chmodSync(file, 0o666);
    const ask = async (queue: ApprovalQueue): Promise<ApprovalOutcome> => {
      const waiting = queue.ask({ sessionKey: 't', request: rm, requester: ada });
      if (queue.pending('t')) queue.answer('t', ada, { approved: false });
      return waiting;
    };
    const lax = new ApprovalQueue({ timeoutMs: 60_000, rules: new ApprovalRules({ file }) });
    expect((await ask(lax)).kind).toBe('denied');
    expect(lax.rules.problem()).toMatch(/writable by other users.*chmod 600/);
    chmodSync(file, 0o600);
    expect((await ask(lax)).kind).toBe('preapproved');
    writeFileSync(file, 'rules: [ {kind: everything} ]\n');
    const broken = new ApprovalQueue({ timeoutMs: 60_000, rules: new ApprovalRules({ file }) });
    expect((await ask(broken)).kind).toBe('denied');
    expect(broken.rules.problem()).toMatch(/approvals\.yaml: rules\.0\.kind/);
    // "always" then approves this session only and says why, leaving the file alone.
    const waiting = broken.ask({ sessionKey: 't', request: rm, requester: ada });
    expect(broken.answer('t', ada, { approved: true, scope: 'always' })).toMatchObject({ outcome: { scope: 'session', ruleError: expect.stringMatching(/rules\.0\.kind/) } });
    expect((await waiting).kind).toBe('approved');
    expect(readFileSync(file, 'utf8')).toBe('rules: [ {kind: everything} ]\n');
  });
});

describe('the normalized form a rule matches', () => {
  it('folds blanks outside quotes only, and keeps commands that differ apart', () => {
    expect(normalizedForm('command', '  rm   -rf\tbuild  ')).toBe('rm -rf build');
    expect(normalizedForm('command', 'echo "a   b"')).toBe('echo "a   b"');
    expect(normalizedForm('command', "echo 'a   b'  x")).toBe("echo 'a   b' x");
    expect(normalizedForm('command', 'echo a\\  b')).toBe('echo a\\  b');
    expect(normalizedForm('command', 'make\n\n   make install\n')).toBe('make\nmake install');
    expect(normalizedForm('command', 'printf SAFE\r#x')).not.toBe(normalizedForm('command', 'printf SAFE #x'));
    expect(normalizedForm('command', 'rm -rf build')).not.toBe(normalizedForm('command', 'rm -rf build/'));
  });

  it('keys a script by its exact text and a write by its path', () => {
    expect(normalizedForm('script', 'if x:\n    y()')).not.toBe(normalizedForm('script', 'if x:\n  y()'));
    expect(normalizedForm('script', 'print(1)')).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(approvalKey({ command: 'write_file /home/a/.bashrc', reason: 'shell start-up file', kind: 'write' })).toEqual({
      kind: 'write',
      reason: 'shell start-up file',
      match: 'write_file /home/a/.bashrc',
    });
  });
});
