import { describe, expect, it } from 'vitest';
import { ApprovalQueue, type ApprovalPerson } from '../../src/approvals/index.js';
import { APPROVAL_BUTTONS, answerOfChoice, approvalButtonData, newApprovalRequestId, readApprovalButtonData } from '../../src/gateway/approval-buttons.js';

const ada: ApprovalPerson = { platform: 'chat', id: '1001', name: 'ada' };
const first = { command: 'rm -rf build', reason: 'recursive delete' };
const second = { command: 'git reset --hard', reason: 'discards work' };

describe('approval buttons and typed presses', () => {
  it('carries the request id and the choice in the button data and reads them back; other data is not ours', () => {
    const id = newApprovalRequestId();
    for (const button of APPROVAL_BUTTONS) {
      const data = approvalButtonData(id, button.choice);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
      expect(readApprovalButtonData(data)).toEqual({ requestId: id, choice: button.choice });
    }
    for (const data of ['hermes:approve', 'hermes:approval:xyz:once', `hermes:approval:${id}:maybe`, `hermes:approval:${id}:once:extra`, 42, undefined]) {
      expect(readApprovalButtonData(data)).toBeUndefined();
    }
    expect(answerOfChoice('deny')).toEqual({ approved: false });
    expect(answerOfChoice('session')).toEqual({ approved: true, scope: 'session' });
  });

  it('a press answers the request it names, not the oldest; an unknown id answers nothing and both keep waiting', async () => {
    const queue = new ApprovalQueue({ timeoutMs: 60_000 });
    const older = queue.ask({ sessionKey: 't', id: 'aaaaaaaaaaaaaaaa', request: first, requester: ada });
    const newer = queue.ask({ sessionKey: 't', id: 'bbbbbbbbbbbbbbbb', request: second, requester: ada });
    expect(queue.answer('t', ada, { approved: true, scope: 'once' }, '0123456789abcdef')).toEqual({ kind: 'nothing_waiting' });
    expect(queue.size('t')).toBe(2);
    expect(queue.answer('t', ada, { approved: false }, 'bbbbbbbbbbbbbbbb')).toMatchObject({ kind: 'answered', request: second });
    expect(await newer).toEqual({ kind: 'denied', by: ada });
    expect(queue.pending('t')).toEqual(first);
    // A typed answer (no id) takes the oldest, as before.
    queue.answer('t', ada, { approved: true, scope: 'once' });
    expect(await older).toEqual({ kind: 'approved', by: ada, scope: 'once' });
  });
});
